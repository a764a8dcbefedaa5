package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A compact text form of sample histories and policies, so decision tests read as a table.
 *
 * <p>History: entries separated by {@code ,}; each is {@code TIME:BODY}.
 * <ul>
 *   <li>{@code TIME} is seconds ({@code 30}) or an inclusive range with a step ({@code 0-60/5}).</li>
 *   <li>{@code BODY} is {@code ERR(Reason)} for an unavailable sample, or
 *       {@code UNDELIVERED+INFLIGHT[@READY]} with {@code ?} for an unknown in-flight count, followed by
 *       optional space-separated attributes: {@code aN} / {@code aR/s[+K]} arrived total (absolute, or R per
 *       second since t=0 plus K), {@code cN} / {@code cR/s} completed total likewise, {@code rN} the replicas the pool
 *       was asked to run when measured, {@code note=text_with_underscores}.</li>
 * </ul>
 * Entries are sorted by time, so interleaved ranges ({@code 0-60/10:99+0, 5-55/10:101+0}) work.
 *
 * <p>Policy: space-separated {@code key=value} over the {@link ScalingPolicy.Builder} defaults:
 * {@code min max T drain window tol partitions rate conc startup poll} (durations in seconds).
 */
final class SampleScript {
    static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    private SampleScript() {}

    static SampleHistory history(String script) {
        List<BacklogSample> samples = new ArrayList<>();
        if (script != null && !script.isBlank()) {
            for (String entry : script.split(",")) {
                samples.addAll(entry(entry.trim()));
            }
        }
        samples.sort(Comparator.comparing(BacklogSample::at));
        return SampleHistory.of(samples);
    }

    static ScalingPolicy policy(String script) {
        ScalingPolicy.Builder builder = ScalingPolicy.builder();
        if (script == null || script.isBlank()) {
            return builder.build();
        }
        for (String pair : script.trim().split("\\s+")) {
            String[] kv = pair.split("=", 2);
            String value = kv[1];
            switch (kv[0]) {
                case "min" -> builder.minReplicas(Integer.parseInt(value));
                case "max" -> builder.maxReplicas(Integer.parseInt(value));
                case "T" -> builder.targetBacklogPerReplica(Long.parseLong(value));
                case "drain" -> builder.targetDrain(Duration.ofSeconds(Long.parseLong(value)));
                case "window" -> builder.scaleDownWindow(Duration.ofSeconds(Long.parseLong(value)));
                case "tol" -> builder.tolerance(Double.parseDouble(value));
                case "partitions" -> builder.partitionCap(Integer.parseInt(value));
                case "rate" -> builder.rateWindow(Duration.ofSeconds(Long.parseLong(value)));
                case "conc" -> builder.concurrencyPerReplica(Integer.parseInt(value));
                case "startup" -> builder.podStartup(Duration.ofSeconds(Long.parseLong(value)));
                case "poll" -> builder.pollInterval(Duration.ofSeconds(Long.parseLong(value)));
                default -> throw new IllegalArgumentException("unknown policy key " + kv[0] + " in " + script);
            }
        }
        return builder.build();
    }

    private static List<BacklogSample> entry(String entry) {
        int colon = entry.indexOf(':');
        String times = entry.substring(0, colon);
        String body = entry.substring(colon + 1).trim();
        List<BacklogSample> samples = new ArrayList<>();
        for (long t : times(times)) {
            samples.add(sample(t, body));
        }
        return samples;
    }

    private static List<Long> times(String text) {
        List<Long> times = new ArrayList<>();
        if (!text.contains("-")) {
            times.add(Long.parseLong(text));
            return times;
        }
        String[] rangeAndStep = text.split("/");
        String[] bounds = rangeAndStep[0].split("-");
        long step = Long.parseLong(rangeAndStep[1]);
        for (long t = Long.parseLong(bounds[0]); t <= Long.parseLong(bounds[1]); t += step) {
            times.add(t);
        }
        return times;
    }

    private static BacklogSample sample(long t, String body) {
        Instant at = T0.plusSeconds(t);
        if (body.startsWith("ERR(")) {
            return BacklogSample.unavailable(at, 0, body.substring(4, body.length() - 1), "broker said no");
        }
        String[] parts = body.split("\\s+");
        String counts = parts[0];
        int ready = 0;
        int atSign = counts.indexOf('@');
        if (atSign >= 0) {
            ready = Integer.parseInt(counts.substring(atSign + 1));
            counts = counts.substring(0, atSign);
        }
        String[] split = counts.split("\\+");
        long undelivered = Long.parseLong(split[0]);
        long inFlight = split[1].equals("?") ? BacklogSample.UNKNOWN : Long.parseLong(split[1]);
        Long arrived = null;
        Long completed = null;
        String note = null;
        Integer asked = null;
        for (int i = 1; i < parts.length; i++) {
            String attribute = parts[i];
            if (attribute.startsWith("note=")) {
                note = attribute.substring(5).replace('_', ' ');
            } else if (attribute.startsWith("r")) {
                asked = Integer.parseInt(attribute.substring(1));
            } else if (attribute.startsWith("a")) {
                arrived = counter(attribute.substring(1), t);
            } else if (attribute.startsWith("c")) {
                completed = counter(attribute.substring(1), t);
            } else {
                throw new IllegalArgumentException("unknown sample attribute " + attribute);
            }
        }
        return new BacklogSample(at, true, undelivered, inFlight, arrived, completed, ready, null, note, asked);
    }

    /** {@code N}, or {@code R/s} (R per second since t=0), optionally followed by {@code +K} or {@code -K}. */
    private static long counter(String text, long t) {
        int perSecond = text.indexOf("/s");
        if (perSecond < 0) {
            return Long.parseLong(text);
        }
        long offset = perSecond + 2 < text.length()
                ? Long.parseLong(text.substring(perSecond + 2).replace("+", ""))
                : 0;
        return Math.round(Double.parseDouble(text.substring(0, perSecond)) * t) + offset;
    }
}
