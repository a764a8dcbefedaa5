package dev.backstage.e2e.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * An arrival trace for {@link KedaComparisonBenchmark}: how many orders arrive in each second, the same for both
 * sides. Sized for 2 cores: at 1 s per job, concurrency 5 and 2 jobs per order (the order and its receipt), one
 * replica serves 2.5 orders/s, so the highest level (14 orders/s) needs 5.6 replicas and the batch fills the 10.
 *
 * @param name  what the table calls it
 * @param perSecond orders enqueued in second {@code i} of the trace (spread evenly within the second)
 */
record ArrivalTrace(String name, double[] perSecond) {

    /** The four shapes, each {@code scale} times as long as its base (1.0: 120-180 s of arrivals). */
    static List<ArrivalTrace> all(double scale) {
        return List.of(step(scale), squareWave(scale), diurnal(scale), batch());
    }

    /** The traces named in {@code names} (comma-separated), in that order. */
    static List<ArrivalTrace> named(String names, double scale) {
        List<ArrivalTrace> chosen = new ArrayList<>();
        for (String name : names.split(",")) {
            chosen.add(all(scale).stream()
                    .filter(t -> t.name().equals(name.trim()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown trace '" + name.trim()
                            + "': use step, square-wave, diurnal or batch, e.g. step,batch")));
        }
        return chosen;
    }

    /** 2 orders/s for 30 s, then 12 orders/s for 90 s. */
    static ArrivalTrace step(double scale) {
        double[] rates = new double[seconds(120, scale)];
        for (int i = 0; i < rates.length; i++) {
            rates[i] = i < seconds(30, scale) ? 2 : 12;
        }
        return new ArrivalTrace("step", rates);
    }

    /** 2 and 12 orders/s in turn, 30 s each, for 150 s (starting low). */
    static ArrivalTrace squareWave(double scale) {
        double[] rates = new double[seconds(150, scale)];
        int half = seconds(30, scale);
        for (int i = 0; i < rates.length; i++) {
            rates[i] = (i / half) % 2 == 0 ? 2 : 12;
        }
        return new ArrivalTrace("square-wave", rates);
    }

    /** A day compressed into 180 s: 1 order/s at night, 14 at noon, a raised cosine between. */
    static ArrivalTrace diurnal(double scale) {
        double[] rates = new double[seconds(180, scale)];
        for (int i = 0; i < rates.length; i++) {
            rates[i] = 1 + 13 * (1 - Math.cos(2 * Math.PI * i / rates.length)) / 2;
        }
        return new ArrivalTrace("diurnal", rates);
    }

    /** 400 orders at once (800 job-seconds: 10 replicas clear them in 16 s), then 60 s of nothing. */
    static ArrivalTrace batch() {
        double[] rates = new double[60];
        rates[0] = 400;
        return new ArrivalTrace("batch", rates);
    }

    /** All orders of the trace: whole orders, as {@link OrderFeed} carries each second's fraction to the next. */
    long orders() {
        return (long) Math.floor(Arrays.stream(perSecond).sum() + 1e-9);
    }

    String describe() {
        return String.format(
                Locale.ROOT,
                "%s: %d s, %d orders, peak %.0f orders/s",
                name,
                perSecond.length,
                orders(),
                Arrays.stream(perSecond).max().orElse(0));
    }

    private static int seconds(int base, double scale) {
        return Math.max(1, (int) Math.round(base * scale));
    }
}
