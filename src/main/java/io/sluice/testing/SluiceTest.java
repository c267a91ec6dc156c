package io.sluice.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class with {@link SluiceExtension}: an embedded Sluice server in memory on free ports,
 * started before the class's first test and stopped after its last ({@link ServerLifecycle#PER_CLASS}, the default),
 * or one for each test ({@link ServerLifecycle#PER_TEST}). Nested classes share the enclosing class's server.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(SluiceExtension.class)
public @interface SluiceTest {

    /** @return when the server starts and stops */
    ServerLifecycle server() default ServerLifecycle.PER_CLASS;

    /** @return the server's segment containers (at least 1) */
    int containers() default 1;
}
