package dev.backstage.runtime.recovery;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One crash-recovery measurement: worker JVMs ({@link CrashRecoveryWorkerMain}) started and SIGKILLed by the
 * test, their {@code START}/{@code DONE} lines collected with the time each was read. The figures are the
 * ones the issue asks for: jobs held at the kill, seconds from the kill until every held job ran again,
 * jobs lost, duplicate runs.
 */
public final class CrashRecoveryRun implements AutoCloseable {
    /** What one scenario measured. {@code secondsToRecover} is negative when recovery did not happen in time. */
    public record Figures(String scenario, int held, double secondsToRecover, int lost, int duplicates, int total) {
        @Override
        public String toString() {
            return String.format(
                    "crash recovery [%s]: %d jobs held at the kill, all ran again after %s, lost %d,"
                            + " duplicated %d (of %d jobs)",
                    scenario,
                    held,
                    secondsToRecover < 0 ? "NEVER (timed out)" : String.format("%.1f s", secondsToRecover),
                    lost,
                    duplicates,
                    total);
        }
    }

    private final String name;
    private final Function<String, List<String>> argumentsFor;
    private final int total;
    private final List<Child> children = new CopyOnWriteArrayList<>();

    /**
     * @param argumentsFor the worker main's arguments for a consumer id
     * @param total        jobs enqueued, numbered 0 … total − 1
     */
    public CrashRecoveryRun(String name, Function<String, List<String>> argumentsFor, int total) {
        this.name = name;
        this.argumentsFor = argumentsFor;
        this.total = total;
    }

    /** A worker JVM and what it printed. */
    public final class Child {
        private final Process process;
        private final Set<Integer> started = ConcurrentHashMap.newKeySet();
        private final Map<Integer, Long> doneAt = new ConcurrentHashMap<>();
        private final AtomicInteger doneLines = new AtomicInteger();
        private final CountDownLatch outputClosed = new CountDownLatch(1);
        private volatile boolean ready;
        private volatile long readyAt = -1;

        Child(String consumerId) throws IOException {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(
                    java,
                    "-Xmx256m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    CrashRecoveryWorkerMain.class.getName()));
            command.addAll(argumentsFor.apply(consumerId));
            File log = new File("target/crash-recovery-" + name + "-" + children.size() + ".log");
            process = new ProcessBuilder(command).redirectError(log).start();
            Thread reader = new Thread(this::read, "crash-child-stdout-" + consumerId);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("START ")) {
                        started.add(Integer.parseInt(line.substring(6).trim()));
                    } else if (line.startsWith("DONE ")) {
                        doneAt.putIfAbsent(Integer.parseInt(line.substring(5).trim()), System.nanoTime());
                        doneLines.incrementAndGet();
                    } else if (line.equals("STARTED")) {
                        readyAt = System.nanoTime();
                        ready = true;
                    }
                }
            } catch (IOException e) {
                // Killed: its stdout closed. Everything it wrote before was read.
            } finally {
                outputClosed.countDown();
            }
        }

        public boolean ready() {
            return ready;
        }

        public int done() {
            return doneLines.get();
        }

        public Set<Integer> started() {
            return Set.copyOf(started);
        }

        public Set<Integer> finished() {
            return Set.copyOf(doneAt.keySet());
        }

        /** Jobs it said it started and not yet that it finished: inside its handlers, or cut off by a kill. */
        public Set<Integer> unfinished() {
            Set<Integer> running = new HashSet<>(started);
            running.removeAll(doneAt.keySet());
            return running;
        }

        /** {@link System#nanoTime()} when this worker said it started, or -1 while it has not. */
        public long readyAt() {
            return readyAt;
        }

        /** {@link System#nanoTime()} when this worker's first job finished, or -1 while none has. */
        public long firstDoneAt() {
            return doneAt.values().stream().mapToLong(Long::longValue).min().orElse(-1);
        }

        /** SIGKILL; returns {@link System#nanoTime()} at the kill, once the JVM is gone and its output read. */
        public long kill() throws InterruptedException {
            long at = System.nanoTime();
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the killed worker JVM did not exit");
            }
            if (!outputClosed.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the killed worker's output did not close");
            }
            return at;
        }
    }

    public Child start(String consumerId) throws IOException {
        Child child = new Child(consumerId);
        children.add(child);
        return child;
    }

    /** A worker killed while it held jobs: when, and which jobs it held by the broker's account. */
    public record Killed(long atNanos, Set<Integer> held) {}

    /** Reads which jobs a killed worker held, from the broker's own state. */
    @FunctionalInterface
    public interface HeldAtKill {
        Set<Integer> held(Child victim) throws Exception;
    }

    /**
     * Starts a worker as {@code consumerId} and SIGKILLs it once it has finished {@code killAfter} jobs and has
     * some inside its handlers, then asks {@code heldAtKill} which jobs it held (from the broker's own state).
     * Between polls a worker can have none inside, and on a loaded machine the jobs seen inside can finish between
     * the look and the kill: then the kill did not test a crash with work held, and another worker is started as
     * {@code consumerId} and killed again (what it ran still counts; nothing may be lost), at most five times.
     */
    public Killed killWhileHolding(String consumerId, int killAfter, HeldAtKill heldAtKill) throws Exception {
        for (int attempt = 1; attempt <= 5; attempt++) {
            Child victim = start(consumerId);
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() ->
                            victim.done() >= killAfter && !victim.unfinished().isEmpty());
            long at = victim.kill();
            Set<Integer> held = heldAtKill.held(victim);
            if (!held.isEmpty()) {
                return new Killed(at, Set.copyOf(held));
            }
            System.out.println("crash recovery [" + name + "]: attempt " + attempt
                    + " held nothing at the kill (its jobs finished first); killing another worker");
        }
        throw new AssertionError("in 5 kills no worker of " + name + " held a job when it died");
    }

    /**
     * Waits (up to {@code max}) until {@code rescuer} finished every job in {@code held}, then until every job
     * ran somewhere (up to {@code drainMax}), and returns the figures.
     */
    public Figures measure(
            String scenario, Set<Integer> held, long killedAtNanos, Child rescuer, Duration max, Duration drainMax) {
        System.out.println("crash recovery [" + scenario + "]: waiting up to " + max.toSeconds() + " s for the "
                + held.size() + " held jobs to run again: " + new TreeSet<>(held));
        double seconds;
        try {
            await().atMost(max)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> rescuer.doneAt.keySet().containsAll(held));
            long last = held.stream().mapToLong(rescuer.doneAt::get).max().orElse(killedAtNanos);
            seconds = (last - killedAtNanos) / 1e9;
        } catch (ConditionTimeoutException e) {
            Set<Integer> missing = new TreeSet<>(held);
            missing.removeAll(rescuer.doneAt.keySet());
            System.out.println("crash recovery [" + scenario + "]: still not run again after " + max.toSeconds()
                    + " s: " + missing);
            seconds = -1;
        }
        System.out.println("crash recovery [" + scenario + "]: waiting up to " + drainMax.toSeconds()
                + " s for the rest of the " + total + " jobs");
        try {
            await().atMost(drainMax)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> everyJobDone().size() == total);
        } catch (ConditionTimeoutException e) {
            // Reported as lost below.
        }
        Set<Integer> done = everyJobDone();
        int runs = children.stream().mapToInt(Child::done).sum();
        Figures figures = new Figures(scenario, held.size(), seconds, total - done.size(), runs - done.size(), total);
        System.out.println(figures);
        return figures;
    }

    private Set<Integer> everyJobDone() {
        Set<Integer> done = new HashSet<>();
        for (Child child : children) {
            done.addAll(child.doneAt.keySet());
        }
        return done;
    }

    @Override
    public void close() throws InterruptedException {
        for (Child child : children) {
            if (child.process.isAlive()) {
                child.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
