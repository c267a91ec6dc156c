package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority for tests, made with the JDK's {@code keytool} alone: a self-signed CA
 * certificate (basic constraints CA:true) and server identities it signs, with the subject alternative names a test
 * asks for. Real deployments look like this (a private CA, servers with certificates it issued), unlike a single
 * self-signed server certificate that is its own trust anchor. Each identity is written as the PEM files
 * {@link ServerTls} reads: the chain (server certificate, then the CA's) and the unencrypted PKCS#8 key.
 * Files live under the directory given; not thread-safe for one name, fine for different ones.
 */
public final class TestCa {
    private static final String PASSWORD = "changeit";

    private final Path dir;
    private final String name;
    private final Path keyStore;
    private final Path certificate;

    private TestCa(Path dir, String name) {
        this.dir = dir;
        this.name = name;
        this.keyStore = dir.resolve(name + "-ca.p12");
        this.certificate = dir.resolve(name + "-ca.pem");
    }

    /**
     * Makes a new CA (an EC P-256 key, valid two days).
     *
     * @param dir where its files go
     * @param name a file-name-safe name, also the CA's common name
     * @return the CA
     * @throws Exception if keytool fails
     */
    public static TestCa create(Path dir, String name) throws Exception {
        TestCa ca = new TestCa(dir, name);
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=" + name + " test CA", "-ext", "bc:c", "-validity", "2", "-keystore", ca.keyStore.toString(),
                "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.keyStore.toString(), "-storepass", PASSWORD,
                "-file", ca.certificate.toString());
        return ca;
    }

    /** @return the CA's certificate as PEM: what a client's trust store holds */
    public Path certificate() {
        return certificate;
    }

    /**
     * Issues a server certificate.
     *
     * @param identity a file-name-safe name of the identity
     * @param commonName the subject's CN
     * @param subjectAlternativeNames keytool's SAN list, e.g. {@code dns:localhost,ip:127.0.0.1}
     * @return the identity as {@link ServerTls} PEM files (chain: the server certificate, then the CA's)
     * @throws Exception if keytool fails
     */
    public ServerTls issue(String identity, String commonName, String subjectAlternativeNames) throws Exception {
        String base = name + "-" + identity;
        Path p12 = dir.resolve(base + ".p12");
        Path request = dir.resolve(base + ".csr");
        Path issued = dir.resolve(base + ".pem");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=" + commonName, "-validity", "2", "-keystore", p12.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-certreq", "-alias", "server", "-keystore", p12.toString(), "-storepass", PASSWORD,
                "-file", request.toString());
        keytool("-gencert", "-alias", "ca", "-keystore", keyStore.toString(), "-storepass", PASSWORD,
                "-infile", request.toString(), "-outfile", issued.toString(), "-rfc", "-validity", "2",
                "-ext", "SAN=" + subjectAlternativeNames, "-ext", "KU=digitalSignature",
                "-ext", "EKU=serverAuth");
        Path chain = dir.resolve(base + "-chain.pem");
        Files.writeString(chain, Files.readString(issued) + Files.readString(certificate));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        Key key = ks.getKey("server", PASSWORD.toCharArray());
        Path keyPem = dir.resolve(base + "-key.pem");
        Files.writeString(keyPem, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        return new ServerTls(chain, keyPem);
    }

    /**
     * @param file where to write
     * @param cas the CAs to trust
     * @return {@code file}, holding the certificates of all of {@code cas} (a trust store of several CAs)
     * @throws Exception if it cannot be written
     */
    public static Path trustStoreOf(Path file, TestCa... cas) throws Exception {
        StringBuilder pem = new StringBuilder();
        for (TestCa ca : cas) {
            pem.append(Files.readString(ca.certificate));
        }
        Files.writeString(file, pem);
        return file;
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("keytool %s finished", args[0]).isTrue();
        assertThat(p.exitValue()).as("keytool %s: %s", List.of(args), out).isZero();
    }
}
