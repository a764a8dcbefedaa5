package dev.backstage.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import dev.backstage.runtime.logging.LogBackend;
import dev.backstage.runtime.logging.LogFormat;
import dev.backstage.runtime.logging.LogSettings;
import dev.backstage.testsupport.UniqueNames;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The mains' logging set-up at TRACE for everything (lettuce and netty included) while a provider authenticates to
 * the real Redis as an ACL user of its own: the log shows lettuce's TRACE lines, and nowhere the password.
 */
@Tag("broker")
class RedisTraceLoggingTest {

    @Test
    void givenTraceForEveryLogger_thenTheRedisPasswordNeverAppearsInTheLog() throws Exception {
        String user = UniqueNames.prefix("trace-user");
        String password = "Pw" + UniqueNames.prefix("s").replace("-", "") + "Z";
        try (RedisTestSupport redis = new RedisTestSupport()) {
            redis.redis()
                    .aclSetuser(
                            user,
                            io.lettuce.core.AclSetuserArgs.Builder.on()
                                    .addPassword(password)
                                    .allKeys()
                                    .allCommands()
                                    .allChannels());
            PrintStream original = System.out;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            try {
                System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
                LogBackend.configure(
                        new LogSettings("trace", Map.of("io.lettuce", "trace", "io.netty", "trace"), LogFormat.TEXT),
                        LogBackend.Target.STDOUT);
                // Proof that TRACE reaches the output for lettuce's loggers, whatever ran in this JVM before (the
                // process-wide client resources may already exist, so their own TRACE lines need not come again).
                LoggerFactory.getLogger("io.lettuce.core.RedisClient").trace("trace canary");
                String url = RedisTestSupport.URL.replace("redis://", "redis://" + user + ":" + password + "@");
                try (RedisProvider provider =
                        RedisProvider.connect(RedisSettings.of(url).withPrefix(redis.prefix()))) {
                    assertEquals("PONG", provider.sync().ping());
                }
            } finally {
                System.setOut(original);
                LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
                context.reset();
                new ContextInitializer(context).autoConfig();
                redis.redis().aclDeluser(user);
            }
            String log = captured.toString(StandardCharsets.UTF_8);
            assertTrue(
                    log.lines().anyMatch(l -> l.contains(" TRACE ") && l.contains("trace canary")),
                    "TRACE is on: " + log.lines().limit(5).toList());
            assertTrue(log.lines().anyMatch(l -> l.contains(" DEBUG ") && l.contains("io.lettuce")));
            assertFalse(log.contains(password), "the password is in the log");
        }
    }
}
