package io.sluice.testing;

import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that runs an embedded Sluice server for tests: in memory, on free ports, one per test class
 * (the default) or one per test, each with a {@link SluiceClient} connected to it. It fills fields marked
 * {@link SluiceInject} ({@link SluiceClient}, {@link EmbeddedServer}), {@link ControllerUri} and {@link TestScope},
 * and resolves parameters of those types (the two {@code String}s by their annotation) of tests, of lifecycle
 * methods and, with a server per class, of the test class's constructor.
 *
 * <p>Use it with {@link SluiceTest} on the class, or register it in a static field to configure the server:
 * <pre>{@code
 * @RegisterExtension
 * static SluiceExtension sluice = SluiceExtension.builder()
 *         .server(ServerLifecycle.PER_TEST)
 *         .configureServer(b -> b.passwordFile(users))
 *         .configureClient(c -> c.credentials(Credentials.basic("admin", "secret")))
 *         .build();
 * }</pre>
 *
 * <p>The server and its client are closed when their class (or test) ends, whatever the outcome; the client first.
 * Tests of one class may run in parallel: the server and client are thread-safe.
 */
public final class SluiceExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SluiceExtension.class);
    private static final String RUNNING = "running";
    private static final String SCOPE = "scope";
    private static final AtomicLong SCOPES = new AtomicLong();

    private final Settings configured;

    /** The extension as {@link SluiceTest} registers it: settings from the annotation, or the defaults. */
    public SluiceExtension() {
        this.configured = null;
    }

    private SluiceExtension(Settings settings) {
        this.configured = settings;
    }

    /** @return a builder of an extension to register with {@code @RegisterExtension} */
    public static Builder builder() {
        return new Builder();
    }

    /** What the extension runs. */
    private record Settings(ServerLifecycle lifecycle, int containers, Consumer<EmbeddedServer.Builder> server,
                            Consumer<ClientConfig.Builder> client) {
    }

    private Settings settings(ExtensionContext context) {
        if (configured != null) {
            return configured;
        }
        for (Class<?> c = context.getRequiredTestClass(); c != null; c = c.getEnclosingClass()) {
            SluiceTest a = c.getAnnotation(SluiceTest.class);
            if (a != null) {
                if (a.containers() < 1) {
                    throw new ExtensionConfigurationException("@SluiceTest(containers = " + a.containers()
                            + ") on " + c.getName() + ": a server needs at least 1 container");
                }
                return new Settings(a.server(), a.containers(), b -> { }, b -> { });
            }
        }
        return new Settings(ServerLifecycle.PER_CLASS, 1, b -> { }, b -> { });
    }

    /** A server and its client, closed once, client first; JUnit closes it when its context's store goes. */
    private static final class Running implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final EmbeddedServer server;
        final SluiceClient client;
        private final AtomicBoolean closed = new AtomicBoolean();

        Running(Settings settings) {
            EmbeddedServer.Builder b = EmbeddedServer.builder().inMemory().controllerPort(0).segmentStorePort(0)
                    .containers(settings.containers());
            settings.server().accept(b);
            EmbeddedServer started = b.build();
            try {
                ClientConfig.Builder config = ClientConfig.builder(started.controllerUri());
                settings.client().accept(config);
                this.client = SluiceClient.connect(config.build());
            } catch (RuntimeException e) {
                started.close();
                throw e;
            }
            this.server = started;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                try {
                    client.close();
                } finally {
                    server.close();
                }
            }
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IllegalAccessException {
        Settings settings = settings(context);
        if (settings.lifecycle() == ServerLifecycle.PER_CLASS) {
            Running running = running(context).orElseGet(() -> start(context, settings));
            injectStatic(context.getRequiredTestClass(), running, context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IllegalAccessException {
        Settings settings = settings(context);
        Running running;
        if (settings.lifecycle() == ServerLifecycle.PER_TEST) {
            running = start(context, settings);
        } else {
            // registered in an instance field, the extension never saw beforeAll: the class's server starts now
            running = running(context).orElseGet(() -> start(context.getParent().orElse(context), settings));
        }
        List<Object> instances = context.getRequiredTestInstances().getAllInstances();
        for (Object instance : instances) {
            injectInstance(instance, running, context);
        }
    }

    private static Running start(ExtensionContext owner, Settings settings) {
        Running running = new Running(settings);
        owner.getStore(NAMESPACE).put(RUNNING, running);
        return running;
    }

    /** The server of this context or of the nearest enclosing one (the store looks in its parents). */
    private static Optional<Running> running(ExtensionContext context) {
        return Optional.ofNullable(context.getStore(NAMESPACE).get(RUNNING, Running.class));
    }

    private static Running required(ExtensionContext context) {
        return running(context).orElseThrow(() -> new ExtensionConfigurationException(
                "no Sluice server runs for " + context.getDisplayName() + ": with a server per test, a static field "
                        + "or a @BeforeAll parameter has none to take"));
    }

    private void injectStatic(Class<?> testClass, Running running, ExtensionContext context)
            throws IllegalAccessException {
        for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && wanted(f)) {
                    set(f, null, valueFor(f, running, context));
                }
            }
        }
    }

    private void injectInstance(Object instance, Running running, ExtensionContext context)
            throws IllegalAccessException {
        for (Class<?> c = instance.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && wanted(f)) {
                    set(f, instance, valueFor(f, running, context));
                }
            }
        }
    }

    private static boolean wanted(Field f) {
        return f.isAnnotationPresent(SluiceInject.class) || f.isAnnotationPresent(ControllerUri.class)
                || f.isAnnotationPresent(TestScope.class);
    }

    private static void set(Field f, Object instance, Object value) throws IllegalAccessException {
        if (Modifier.isFinal(f.getModifiers())) {
            throw new ExtensionConfigurationException("field " + describe(f) + " is final: SluiceExtension cannot set it");
        }
        f.setAccessible(true);
        f.set(instance, value);
    }

    private static String describe(Field f) {
        return f.getDeclaringClass().getSimpleName() + "." + f.getName();
    }

    private static Object valueFor(Field f, Running running, ExtensionContext context) {
        Object value = valueOf(f.getType(), f.isAnnotationPresent(ControllerUri.class),
                f.isAnnotationPresent(TestScope.class), running, context);
        if (value == null) {
            throw new ExtensionConfigurationException("field " + describe(f) + " of type " + f.getType().getName()
                    + ": SluiceExtension fills SluiceClient and EmbeddedServer fields, and String fields marked "
                    + "@ControllerUri or @TestScope");
        }
        return value;
    }

    /** The value for a field or parameter of {@code type}, or {@code null} if the extension has none for it. */
    private static Object valueOf(Class<?> type, boolean controllerUri, boolean testScope, Running running,
                                  ExtensionContext context) {
        if (controllerUri) {
            if (type == String.class) {
                return running.server.controllerUri();
            }
            return type == URI.class ? URI.create(running.server.controllerUri()) : null;
        }
        if (testScope) {
            return type == String.class ? scopeFor(context, running) : null;
        }
        if (type == SluiceClient.class) {
            return running.client;
        }
        return type == EmbeddedServer.class ? running.server : null;
    }

    /** This test's scope, created the first time the test asks for it. */
    private static String scopeFor(ExtensionContext context, Running running) {
        if (context.getTestMethod().isEmpty()) {
            throw new ExtensionConfigurationException("@TestScope is a scope for one test: " + context.getDisplayName()
                    + " is not a test (use it on an instance field or a test's parameter)");
        }
        // the store of the test's own context: each test has its own, and its parents (the classes) hold none
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        String existing = store.get(SCOPE, String.class);
        if (existing != null) {
            return existing;
        }
        String name = "t" + SCOPES.incrementAndGet() + "-" + nameOf(context.getRequiredTestMethod().getName());
        running.client.streamManager().createScope(name);
        store.put(SCOPE, name);
        return name;
    }

    /** A method's name as a scope name may hold it: letters, digits and '-', at most 48 characters. */
    static String nameOf(String method) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < method.length() && sb.length() < 48; i++) {
            char ch = method.charAt(i);
            sb.append((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ? ch : '-');
        }
        return sb.isEmpty() ? "test" : sb.toString();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Parameter p = parameterContext.getParameter();
        Class<?> type = p.getType();
        if (p.isAnnotationPresent(ControllerUri.class)) {
            return type == String.class || type == URI.class;
        }
        if (p.isAnnotationPresent(TestScope.class)) {
            return type == String.class;
        }
        return type == SluiceClient.class || type == EmbeddedServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Parameter p = parameterContext.getParameter();
        Running running;
        try {
            running = required(extensionContext);
        } catch (ExtensionConfigurationException e) {
            throw new ParameterResolutionException(e.getMessage(), e);
        }
        Object value = valueOf(p.getType(), p.isAnnotationPresent(ControllerUri.class),
                p.isAnnotationPresent(TestScope.class), running, extensionContext);
        return Objects.requireNonNull(value, "supportsParameter let through " + p);
    }

    /** Builds an extension to register with {@code @RegisterExtension}, for a server configured in code. */
    public static final class Builder {
        private ServerLifecycle lifecycle = ServerLifecycle.PER_CLASS;
        private int containers = 1;
        private Consumer<EmbeddedServer.Builder> server = b -> { };
        private Consumer<ClientConfig.Builder> client = b -> { };

        private Builder() {
        }

        /**
         * @param lifecycle when the server starts and stops (default {@link ServerLifecycle#PER_CLASS})
         * @return this
         */
        public Builder server(ServerLifecycle lifecycle) {
            this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
            return this;
        }

        /**
         * @param n the server's segment containers, at least 1 (default 1)
         * @return this
         */
        public Builder containers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("containers must be at least 1, got " + n);
            }
            this.containers = n;
            return this;
        }

        /**
         * @param options applied to each server's builder after the extension's own settings (in memory, free ports,
         *                the containers): a password file, TLS, short windows for scaling and retention...
         * @return this
         */
        public Builder configureServer(Consumer<EmbeddedServer.Builder> options) {
            this.server = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * @param options applied to the injected client's configuration (credentials, timeouts...)
         * @return this
         */
        public Builder configureClient(Consumer<ClientConfig.Builder> options) {
            this.client = Objects.requireNonNull(options, "options");
            return this;
        }

        /** @return the extension */
        public SluiceExtension build() {
            return new SluiceExtension(new Settings(lifecycle, containers, server, client));
        }
    }
}
