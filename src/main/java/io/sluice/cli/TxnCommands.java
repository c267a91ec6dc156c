package io.sluice.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.sluice.client.SluiceClient;
import io.sluice.stream.Serializers;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionInfo;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.WriterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code sluice txn begin|write|commit|abort|status|list}: transactions of a stream from the command line, one step
 * per command, so a script can begin a transaction, write into it from several commands and commit or abort it.
 * Has no behaviour of its own: without a subcommand it is a usage error.
 */
@Command(name = "txn", mixinStandardHelpOptions = true,
        description = {"Begin, write, commit and abort transactions of a stream, one step per command.",
            "A transaction stays open for its lease after the command that began or wrote it exits: give "
                + "'txn begin' a --lease long enough for the commands that follow (at most the controller's "
                + "maximum, 10m on Pravega and on './sluice server')."},
        subcommands = {TxnCommands.Begin.class, TxnCommands.Write.class, TxnCommands.Commit.class,
            TxnCommands.Abort.class, TxnCommands.Status.class, TxnCommands.ListTxns.class})
final class TxnCommands {

    private TxnCommands() {
    }

    /** Reads a transaction id: a UUID as Pravega prints it. */
    static final class IdConverter implements ITypeConverter<UUID> {
        @Override
        public UUID convert(String value) {
            try {
                return UUID.fromString(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a transaction id (a UUID, as "
                        + "'txn begin' prints it)");
            }
        }
    }

    /** A command about one transaction of a stream. */
    abstract static class OneTxn extends EventCommands.EventCommand {
        @Parameters(index = "1", paramLabel = "TXN", converter = IdConverter.class,
                description = "the transaction's id, as 'txn begin' printed it")
        UUID txn;

        TransactionalEventStreamWriter<String> writer(SluiceClient client) {
            return client.newTransactionalWriter(stream.scope(), stream.name(), Serializers.utf8(),
                    ControllerOptions.writerConfig(options.timeout));
        }

        Map<String, Object> json(String state) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("stream", stream.scopedName());
            json.put("txn", txn.toString());
            json.put("state", state);
            return json;
        }
    }

    /** {@code sluice txn begin SCOPE/STREAM [--lease D]}. */
    @Command(name = "begin", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Begins a transaction on a stream and prints its id.",
                "It stays open for --lease (default 2m) unless a 'txn write' extends it; then the controller aborts "
                    + "it."},
            footer = Main.EXIT_STATUS)
    static final class Begin extends EventCommands.EventCommand {
        @Option(names = "--lease", paramLabel = "DURATION", converter = ControllerOptions.DurationConverter.class,
                description = "how long the transaction stays open without a command touching it, e.g. 90s or 10m "
                        + "(default 2m)")
        Duration lease = Duration.ofMinutes(2);

        @Override
        void validate() {
            if (lease.isZero() || lease.isNegative()) {
                throw new IllegalArgumentException("--lease must be positive, got " + lease);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            WriterConfig config = ControllerOptions.writerConfig(options.timeout).withTransactionLease(lease);
            // the writer would abort nothing on close, but its pinger stops: the lease alone keeps it open
            try (TransactionalEventStreamWriter<String> writer = client.newTransactionalWriter(stream.scope(),
                    stream.name(), Serializers.utf8(), config)) {
                Transaction<String> t = writer.beginTxn();
                Map<String, Object> json = new LinkedHashMap<>();
                json.put("stream", stream.scopedName());
                json.put("txn", t.id().toString());
                json.put("leaseSeconds", lease.toSeconds());
                return Result.of(json, t.id().toString());
            }
        }
    }

    /** {@code sluice txn write SCOPE/STREAM TXN [--key K]}. */
    @Command(name = "write", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Writes the lines of standard input into an open transaction, one event per line (UTF-8, "
                    + "without the line end), and flushes them into it.",
                "Readers see nothing of it until 'txn commit'."},
            footer = Main.EXIT_STATUS)
    static final class Write extends OneTxn {
        @Option(names = "--key", paramLabel = "K", description = "the routing key of every event (default: none)")
        String key;

        @Override
        Result execute(SluiceClient client) {
            Main main = (Main) spec.root().userObject();
            // not closed: closing it would close the process's standard input
            BufferedReader in = new BufferedReader(new InputStreamReader(main.stdin(), StandardCharsets.UTF_8));
            long written = 0;
            try (TransactionalEventStreamWriter<String> writer = writer(client)) {
                Transaction<String> t = writer.getTxn(txn);
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (key == null) {
                        t.write(line);
                    } else {
                        t.write(key, line);
                    }
                    written++;
                }
                t.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read standard input after " + written + " lines: "
                        + e.getMessage(), e);
            }
            Map<String, Object> json = json("OPEN");
            json.put("written", written);
            return Result.of(json, written + (written == 1 ? " event" : " events") + " written into transaction "
                    + txn);
        }
    }

    /** {@code sluice txn commit SCOPE/STREAM TXN}. */
    @Command(name = "commit", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Commits a transaction: its events appear in the stream, all at once, and the command "
                    + "returns once the controller reports it committed.",
                "Fails if the transaction is aborted, timed out or unknown."},
            footer = Main.EXIT_STATUS)
    static final class Commit extends OneTxn {
        @Override
        Result execute(SluiceClient client) {
            try (TransactionalEventStreamWriter<String> writer = writer(client)) {
                writer.getTxn(txn).commit();
            }
            return Result.of(json("COMMITTED"), "transaction " + txn + " committed");
        }
    }

    /** {@code sluice txn abort SCOPE/STREAM TXN}. */
    @Command(name = "abort", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Aborts a transaction: none of its events is ever read.",
                "Fails if the transaction is already committed."},
            footer = Main.EXIT_STATUS)
    static final class Abort extends OneTxn {
        @Override
        Result execute(SluiceClient client) {
            try (TransactionalEventStreamWriter<String> writer = writer(client)) {
                writer.getTxn(txn).abort();
            }
            return Result.of(json("ABORTED"), "transaction " + txn + " aborted");
        }
    }

    /** {@code sluice txn status SCOPE/STREAM TXN}. */
    @Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Prints a transaction's state: OPEN, COMMITTING, COMMITTED, ABORTING or ABORTED.",
            footer = Main.EXIT_STATUS)
    static final class Status extends OneTxn {
        @Override
        Result execute(SluiceClient client) {
            String state;
            try (TransactionalEventStreamWriter<String> writer = writer(client)) {
                state = writer.getTxn(txn).status().name();
            }
            return Result.of(json(state), state);
        }
    }

    /** {@code sluice txn list SCOPE/STREAM}. */
    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Lists the stream's completed transactions the controller remembers: id and state "
                    + "(COMMITTED or ABORTED), one per line.",
                "Open transactions are not listed (Pravega's controller has no call for them)."},
            footer = Main.EXIT_STATUS)
    static final class ListTxns extends EventCommands.EventCommand {
        @Override
        Result execute(SluiceClient client) {
            List<TransactionInfo> done = client.streamManager().listCompletedTransactions(stream.scope(),
                    stream.name());
            List<String> lines = new ArrayList<>();
            List<Object> json = new ArrayList<>();
            for (TransactionInfo t : done) {
                lines.add(t.txnId() + " " + t.state());
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("txn", t.txnId().toString());
                one.put("state", t.state().name());
                json.add(one);
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("stream", stream.scopedName());
            out.put("transactions", json);
            return new Result(out, lines);
        }
    }
}
