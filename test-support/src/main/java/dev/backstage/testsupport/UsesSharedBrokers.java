package dev.backstage.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * On a test class: it holds the named {@link SharedBroker}s for all its tests ({@link SharedBrokerLock}), shared,
 * or exclusively with {@code disrupts = true} when it kills or restarts their nodes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SharedBrokerExtension.class)
public @interface UsesSharedBrokers {
    SharedBroker[] value();

    boolean disrupts() default false;
}
