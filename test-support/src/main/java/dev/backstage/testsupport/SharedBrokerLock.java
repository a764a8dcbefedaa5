package dev.backstage.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A readers-writer lock on a {@link SharedBroker}, held across processes: tests that use a shared broker group hold
 * it shared, a test that kills one of its nodes holds it exclusively, so the kill never lands in the middle of
 * another run's test. Two layers: a fair {@link ReentrantReadWriteLock} per broker inside this JVM (a file lock
 * cannot be taken twice by one JVM), and a {@link FileLock} on {@code ${java.io.tmpdir}/backstage-shared-brokers/}
 * between JVMs (released by the OS if a JVM dies). Brokers are always locked in enum order, so two holders cannot
 * deadlock. Its own tests lock files in a directory of their own ({@link #hold(Path, Set, boolean, String)}), so they
 * neither wait for nor disturb the other lanes.
 */
public final class SharedBrokerLock implements AutoCloseable {
    private static final Path DIRECTORY = Path.of(System.getProperty("java.io.tmpdir"), "backstage-shared-brokers");
    /** One entry per lock file: the file names the broker, its directory the set of runs that share it. */
    private static final Map<Path, Entry> ENTRIES = new HashMap<>();

    private final List<Runnable> releases = new ArrayList<>();

    private SharedBrokerLock() {}

    /**
     * Blocks until the brokers can be held: shared when {@code disrupts} is false (others may use them too),
     * exclusively when it is true (the caller kills or restarts their nodes). Prints a line when it has to wait.
     */
    public static SharedBrokerLock hold(Set<SharedBroker> brokers, boolean disrupts, String holder) {
        return hold(DIRECTORY, brokers, disrupts, holder);
    }

    /** {@link #hold(Set, boolean, String)} with the lock files in {@code directory}. */
    static SharedBrokerLock hold(Path directory, Set<SharedBroker> brokers, boolean disrupts, String holder) {
        SharedBrokerLock lock = new SharedBrokerLock();
        try {
            for (SharedBroker broker : new TreeSet<>(brokers)) {
                Entry entry;
                synchronized (ENTRIES) {
                    entry = ENTRIES.computeIfAbsent(
                            directory.resolve(broker.fileName()), file -> new Entry(broker, file));
                }
                lock.releases.add(0, disrupts ? entry.exclusive(holder) : entry.shared(holder));
            }
            return lock;
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    @Override
    public void close() {
        releases.forEach(Runnable::run);
        releases.clear();
    }

    /** One broker's two layers; {@code sharedHolders} counts this JVM's shared holders of the file lock. */
    private static final class Entry {
        private final SharedBroker broker;
        private final Path file;
        private final ReentrantReadWriteLock inJvm = new ReentrantReadWriteLock(true);
        private FileChannel channel;
        private FileLock fileLock;
        private int sharedHolders;

        Entry(SharedBroker broker, Path file) {
            this.broker = broker;
            this.file = file;
        }

        Runnable shared(String holder) {
            inJvm.readLock().lock();
            try {
                synchronized (this) {
                    if (sharedHolders++ == 0) {
                        fileLock = acquire(true, holder);
                    }
                }
            } catch (RuntimeException e) {
                synchronized (this) {
                    sharedHolders--;
                }
                inJvm.readLock().unlock();
                throw e;
            }
            return () -> {
                synchronized (this) {
                    if (--sharedHolders == 0) {
                        releaseFile();
                    }
                }
                inJvm.readLock().unlock();
            };
        }

        Runnable exclusive(String holder) {
            inJvm.writeLock().lock();
            try {
                synchronized (this) {
                    fileLock = acquire(false, holder);
                }
            } catch (RuntimeException e) {
                inJvm.writeLock().unlock();
                throw e;
            }
            return () -> {
                synchronized (this) {
                    releaseFile();
                }
                inJvm.writeLock().unlock();
            };
        }

        private FileLock acquire(boolean shared, String holder) {
            try {
                Files.createDirectories(file.getParent());
                channel = FileChannel.open(
                        file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock got = channel.tryLock(0, Long.MAX_VALUE, shared);
                if (got == null) {
                    System.out.printf(
                            "%s waits for %s: another test run %s it%n",
                            holder, broker, shared ? "is killing nodes of" : "is using");
                    got = channel.lock(0, Long.MAX_VALUE, shared);
                }
                return got;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot lock " + file, e);
            }
        }

        private void releaseFile() {
            try {
                if (fileLock != null) {
                    fileLock.release();
                }
                if (channel != null) {
                    channel.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                fileLock = null;
                channel = null;
            }
        }
    }
}
