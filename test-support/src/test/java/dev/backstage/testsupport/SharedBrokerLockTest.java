package dev.backstage.testsupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Locks files in a directory of its own: the real ones are held by the other lanes of {@code bin/test}. */
class SharedBrokerLockTest {
    @TempDir
    Path directory;

    @Test
    void givenAnExclusiveHolder_whenAnotherThreadAsksToShare_thenItWaitsUntilTheHolderLetsGo() {
        AtomicBoolean sharedHeld = new AtomicBoolean();
        SharedBrokerLock exclusive =
                SharedBrokerLock.hold(directory, Set.of(SharedBroker.REDIS_SENTINEL), true, "killer");
        Thread[] reader = new Thread[1];
        CompletableFuture<Void> sharing = CompletableFuture.runAsync(() -> {
            reader[0] = Thread.currentThread();
            try (SharedBrokerLock shared =
                    SharedBrokerLock.hold(directory, Set.of(SharedBroker.REDIS_SENTINEL), false, "user")) {
                sharedHeld.set(true);
            }
        });
        await().atMost(Duration.ofSeconds(30))
                .until(() -> reader[0] != null && reader[0].getState() == Thread.State.WAITING);
        assertFalse(sharedHeld.get(), "the shared holder got in while the exclusive holder held the broker");
        exclusive.close();
        sharing.join();
        assertEquals(true, sharedHeld.get());
    }

    @Test
    void givenTwoSharedHoldersInOneJvm_whenBothHold_thenAnotherProcessCannotTakeItExclusively() throws Exception {
        try (SharedBrokerLock a =
                        SharedBrokerLock.hold(directory, EnumSet.of(SharedBroker.REDIS_SENTINEL), false, "a");
                SharedBrokerLock b =
                        SharedBrokerLock.hold(directory, EnumSet.of(SharedBroker.REDIS_SENTINEL), false, "b")) {
            assertEquals("busy", tryExclusiveInAnotherProcess(directory.resolve("redis-sentinel.lock")));
        }
        assertEquals("free", tryExclusiveInAnotherProcess(directory.resolve("redis-sentinel.lock")));
    }

    /** A child JVM tries the file lock exclusively, as another lane's test would, and says what it found. */
    private static String tryExclusiveInAnotherProcess(Path file) throws Exception {
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        TryExclusive.class.getName(),
                        file.toString())
                .redirectErrorStream(true)
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            assertEquals(0, child.waitFor());
            assertNotNull(line);
            return line;
        }
    }

    /** The child's main: prints "free" when it got the exclusive lock (and lets it go), "busy" when it did not. */
    static final class TryExclusive {
        public static void main(String[] args) throws Exception {
            try (FileChannel channel = FileChannel.open(
                    Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                FileLock lock = channel.tryLock(0, Long.MAX_VALUE, false);
                System.out.println(lock == null ? "busy" : "free");
                if (lock != null) {
                    lock.release();
                }
            }
        }
    }
}
