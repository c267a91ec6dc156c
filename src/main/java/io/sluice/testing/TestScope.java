package io.sluice.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@code String} field or parameter: a scope created for this test alone, named after it ({@code
 * t1-writesAnOrder}, the number unique in the run), so that tests sharing a server never see each other's streams.
 * It is created the first time the test asks for it; a test that never asks gets none.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER})
public @interface TestScope {
}
