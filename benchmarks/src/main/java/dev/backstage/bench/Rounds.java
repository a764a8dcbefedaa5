package dev.backstage.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs every side once per round, warm-up rounds first (printed, so steady state shows), the order of the
 * sides rotated every round so none always runs first or on a warmer JVM; prints each round with the machine
 * load before and after, then per side the median with the spread (min–max over rounds), and each ratio of the
 * first side (the Worker) to every other side with both medians and the spread of the per-round ratios.
 */
final class Rounds {
    private Rounds() {}

    static void run(String title, List<Side> allSides, int jobs, int warmups, int rounds) throws Exception {
        // -Dbench.only=<side name prefix> runs one side alone (e.g. under a profiler); then no ratio is printed.
        String only = System.getProperty("bench.only", "");
        List<Side> sides =
                allSides.stream().filter(s -> s.name().startsWith(only)).toList();
        System.out.printf(
                Locale.ROOT,
                "%s%n%,d jobs per side per round, %d warm-up + %d measured rounds, %d cores, heap %d MB,"
                        + " load %.2f%n",
                title,
                jobs,
                warmups,
                rounds,
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20,
                Load.now());
        Map<String, List<TimedWindow.Measured>> results = new LinkedHashMap<>();
        sides.forEach(s -> results.put(s.name(), new ArrayList<>()));
        List<Double> loads = new ArrayList<>();
        for (int r = 1; r <= warmups + rounds; r++) {
            boolean warm = r <= warmups;
            double before = Load.now();
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < sides.size(); i++) {
                Side side = sides.get((i + r) % sides.size());
                TimedWindow.Measured m = side.run(jobs);
                if (!warm) {
                    results.get(side.name()).add(m);
                }
                line.append(String.format(
                        Locale.ROOT,
                        "%n    %-46s %,10.0f jobs/s %6.2f us CPU/job%s",
                        side.name(),
                        m.jobsPerSecond(),
                        m.cpuMicrosPerJob(),
                        broker(m.brokerCpuMicrosPerJob())));
            }
            double after = Load.now();
            if (!warm) {
                loads.add(before);
                loads.add(after);
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s %d (load %.2f -> %.2f):%s%n",
                    warm ? "warm-up" : "round",
                    warm ? r : r - warmups,
                    before,
                    after,
                    line);
        }
        System.out.printf(
                Locale.ROOT,
                "%nRESULT %s, median of %d rounds [min-max], load during rounds %.2f-%.2f:%n",
                title,
                rounds,
                loads.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
                loads.stream().mapToDouble(d -> d).max().orElse(Double.NaN));
        for (var e : results.entrySet()) {
            List<Double> rate = e.getValue().stream()
                    .map(TimedWindow.Measured::jobsPerSecond)
                    .toList();
            List<Double> cpu = e.getValue().stream()
                    .map(TimedWindow.Measured::cpuMicrosPerJob)
                    .toList();
            List<Double> brokerCpu = e.getValue().stream()
                    .map(TimedWindow.Measured::brokerCpuMicrosPerJob)
                    .toList();
            System.out.printf(
                    Locale.ROOT,
                    "  %-46s %,10.0f jobs/s [%,.0f-%,.0f]  %6.2f us CPU/job [%.2f-%.2f]%s%n",
                    e.getKey(),
                    median(rate),
                    min(rate),
                    max(rate),
                    median(cpu),
                    min(cpu),
                    max(cpu),
                    broker(median(brokerCpu)));
        }
        String primary = sides.get(0).name();
        List<TimedWindow.Measured> mine = results.get(primary);
        for (int i = 1; i < sides.size(); i++) {
            List<TimedWindow.Measured> other = results.get(sides.get(i).name());
            List<Double> perRound = new ArrayList<>();
            for (int k = 0; k < mine.size(); k++) {
                perRound.add(mine.get(k).jobsPerSecond() / other.get(k).jobsPerSecond());
            }
            double a = median(
                    mine.stream().map(TimedWindow.Measured::jobsPerSecond).toList());
            double b = median(
                    other.stream().map(TimedWindow.Measured::jobsPerSecond).toList());
            System.out.printf(
                    Locale.ROOT,
                    "  RATIO %s / %s = %,.0f / %,.0f = %.2f (per round %.2f-%.2f)%n",
                    primary,
                    sides.get(i).name(),
                    a,
                    b,
                    a / b,
                    min(perRound),
                    max(perRound));
        }
    }

    /** The broker's CPU per job, where the benchmark knows the broker's process. */
    private static String broker(double micros) {
        return Double.isNaN(micros) ? "" : String.format(Locale.ROOT, "  broker %6.2f us CPU/job", micros);
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double min(List<Double> v) {
        return v.stream().mapToDouble(d -> d).min().orElse(Double.NaN);
    }

    private static double max(List<Double> v) {
        return v.stream().mapToDouble(d -> d).max().orElse(Double.NaN);
    }
}
