package dev.backstage.runtime.main;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskBinder;
import dev.backstage.runtime.api.TaskModule;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task module for {@link RuntimeMainLoggingTest} only (listed in a services file the test writes, so no other
 * runtime started from the test class path loads it): its handler logs the way task code does, an info line and
 * an error with a two-line message and an exception with a cause.
 */
public final class LoggingProbeModule implements TaskModule {
    static final String TASK = "log-probe";
    private static final Logger log = LoggerFactory.getLogger(LoggingProbeModule.class);

    @Override
    @SuppressWarnings("rawtypes")
    public void register(TaskBinder binder) {
        binder.task(TASK, Map.class, (context, payload) -> {
            log.info("probe got {}", payload);
            log.error(
                    "probe failed on purpose\nsecond line of the message",
                    new IllegalStateException("outer", new java.io.IOException("inner cause")));
            return Next.done();
        });
    }
}
