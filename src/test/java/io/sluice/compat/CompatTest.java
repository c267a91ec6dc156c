package io.sluice.compat;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that runs against the REAL Pravega 0.13 standalone ({@link RealPravega}).
 *
 * <p>It tags the class {@value #TAG} and requires a configured, reachable server before its first test. The build
 * runs tagged classes only when {@code SLUICE_COMPAT_CONTROLLER} is set (Maven profile {@code compat}, activated by
 * that variable; {@code .ci/run} sets it), in a surefire execution of their own whose reports go to
 * {@code target/surefire-reports-compat}; without the variable they are excluded by tag, never skipped. A tagged
 * class run without a server (e.g. from an IDE) fails.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(CompatTest.TAG)
@ExtendWith(RealPravega.Required.class)
public @interface CompatTest {
    /** The JUnit tag of compatibility tests. */
    String TAG = "compat";
}
