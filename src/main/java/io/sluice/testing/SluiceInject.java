package io.sluice.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a field that {@link SluiceExtension} fills before each test: a {@link io.sluice.client.SluiceClient}
 * connected to the test's server, or the {@link io.sluice.server.EmbeddedServer} itself. Static fields are filled
 * before the class's first test, only with a server per class. For the controller's URI or a fresh scope, annotate a
 * {@code String} field with {@link ControllerUri} or {@link TestScope} instead.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface SluiceInject {
}
