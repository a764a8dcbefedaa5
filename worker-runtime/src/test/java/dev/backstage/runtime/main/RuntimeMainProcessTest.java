package dev.backstage.runtime.main;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.redis.RedisTestSupport;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The container main as Kubernetes runs it: its own JVM, probes on a port, SIGTERM to stop. */
@Tag("broker")
class RuntimeMainProcessTest {
    private final RedisTestSupport redis = new RedisTestSupport();
    private Process process;

    @AfterEach
    void tearDown() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        redis.close();
    }

    @Test
    void givenARunningRuntime_whenItGetsSigterm_thenItDrainsAndExitsWithStatusZero() throws Exception {
        Path config = RuntimeMainFixture.redisConfig(Files.createTempFile("runtime", ".yaml"), redis.prefix());
        int port = RuntimeMainFixture.freePort();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        RuntimeMain.class.getName(),
                        config.toString())
                .redirectErrorStream(true)
                .redirectOutput(new File("target/runtime-main-sigterm.log"));
        builder.environment().put("MY_REDIS", RedisTestSupport.URL);
        builder.environment().put("BACKSTAGE_HTTP_PORT", Integer.toString(port));
        process = builder.start();
        RuntimeMainFixture.awaitReady(port);

        process.destroy(); // SIGTERM
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the runtime exits after SIGTERM");
        assertEquals(0, process.exitValue(), "a clean drain exits 0, not 143; see target/runtime-main-sigterm.log");
    }
}
