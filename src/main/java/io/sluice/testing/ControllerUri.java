package io.sluice.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@code String} (or {@link java.net.URI}) field or parameter: the test server's controller URI, e.g.
 * {@code tcp://127.0.0.1:40123}, for code under test that makes its own client.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER})
public @interface ControllerUri {
}
