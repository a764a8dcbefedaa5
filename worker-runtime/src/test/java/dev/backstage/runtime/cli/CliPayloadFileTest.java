package dev.backstage.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.redis.RedisTestSupport;
import io.lettuce.core.Range;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code enqueue TASK @file} against the real Redis: a 50 MB payload, a file that is not UTF-8, one that is not JSON. */
@Tag("broker")
class CliPayloadFileTest {
    private final RedisTestSupport redis = new RedisTestSupport();

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        redis.close();
    }

    private Path fiftyMegabytes(String tail) throws IOException {
        Path file = dir.resolve("big.json");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("[");
            for (int i = 0; i < 1_000_000; i++) {
                out.write((i == 0 ? "" : ",") + "{\"n\":" + i + ",\"pad\":\"" + "x".repeat(36) + "\"}");
            }
            out.write("]" + tail);
        }
        return file;
    }

    @Test
    void givenAFiftyMegabytePayloadFile_thenTheJobIsEnqueuedWithItWhole() throws Exception {
        Path file = fiftyMegabytes("");
        long size = Files.size(file);
        assertTrue(size > 50_000_000, "size " + size);
        CliRun run = CliRun.of("enqueue", "bulk", "@" + file, "--prefix", redis.prefix());
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.err().length() < 500, "nothing of the payload on stderr");
        var entries = redis.redis().xrange(redis.prefix() + ":default", Range.create("-", "+"));
        assertEquals(1, entries.size());
        assertEquals(size, entries.get(0).getBody().get("payload").length());
    }

    @Test
    void givenALargeFileThatIsNotOneJsonValue_thenTheErrorIsOneShortLine() throws Exception {
        Path file = fiftyMegabytes(" trailing");
        CliRun run = CliRun.of("enqueue", "bulk", "@" + file, "--prefix", redis.prefix());
        assertEquals(2, run.exit(), run.err());
        assertEquals(1, run.err().lines().count());
        assertTrue(
                run.err().length() < 600,
                "the payload is not echoed: " + run.err().length() + " characters");
        assertTrue(run.err().contains("is not one JSON value"), run.err());
        assertEquals(0, redis.redis().exists(redis.prefix() + ":default"));
    }

    @Test
    void givenAPayloadFileThatIsNotUtf8_thenItIsRefusedNotReplaced() throws Exception {
        Path file = dir.resolve("latin1.json");
        Files.write(file, new byte[] {'{', '"', 'n', '"', ':', '"', 'c', 'a', 'f', (byte) 0xE9, '"', '}'});
        CliRun run = CliRun.of("enqueue", "t", "@" + file, "--prefix", redis.prefix());
        assertEquals(2, run.exit(), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("is not valid UTF-8 (byte offset 9); convert it to UTF-8"), run.err());
        assertEquals(0, redis.redis().exists(redis.prefix() + ":default"));
        CliRun missing = CliRun.of("enqueue", "t", "@" + dir.resolve("nope.json"), "--prefix", redis.prefix());
        assertEquals(2, missing.exit(), missing.err());
        assertTrue(missing.err().contains("does not exist"), missing.err());
    }
}
