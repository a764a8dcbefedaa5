package dev.backstage.operator.console;

import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * A pool's history as a small inline SVG: backlog (outstanding) and in flight on the left scale, desired and ready
 * replicas on the right scale, time left to right, and a vertical mark (with a tooltip) where desired replicas
 * changed: a scaling decision. Pure: samples in, markup out.
 */
public final class HistoryPlot {
    static final int WIDTH = 600;
    static final int HEIGHT = 160;
    private static final int PAD = 4;

    private HistoryPlot() {}

    public static String svg(List<PoolSample> samples) {
        StringBuilder out = new StringBuilder();
        out.append("<svg class=\"plot\" role=\"img\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\"><title>backlog and replicas, ")
                .append(samples.size())
                .append(" samples</title>");
        out.append("<rect class=\"frame\" x=\"0\" y=\"0\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT)
                .append("\"/>");
        if (samples.size() >= 2) {
            long backlogMax = Math.max(1, max(samples, PoolSample::outstanding));
            long replicaMax = Math.max(1, Math.max(max(samples, PoolSample::desired), max(samples, PoolSample::ready)));
            scaleMarks(out, samples);
            line(out, "backlog", samples, PoolSample::outstanding, backlogMax);
            line(out, "inflight", samples, PoolSample::inFlight, backlogMax);
            line(out, "desired", samples, PoolSample::desired, replicaMax);
            line(out, "ready", samples, PoolSample::ready, replicaMax);
        }
        return out.append("</svg>").toString();
    }

    private static void scaleMarks(StringBuilder out, List<PoolSample> samples) {
        long first = samples.get(0).atMs();
        long span = Math.max(1, samples.get(samples.size() - 1).atMs() - first);
        for (int i = 1; i < samples.size(); i++) {
            PoolSample before = samples.get(i - 1);
            PoolSample now = samples.get(i);
            if (before.desired() != now.desired()) {
                double x = PAD + (WIDTH - 2.0 * PAD) * (now.atMs() - first) / span;
                out.append(String.format(
                        Locale.ROOT,
                        "<line class=\"scale\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\">"
                                + "<title>desired %d → %d at %s</title></line>",
                        x,
                        x,
                        HEIGHT,
                        before.desired(),
                        now.desired(),
                        java.time.Instant.ofEpochMilli(now.atMs())));
            }
        }
    }

    private static long max(List<PoolSample> samples, ToLongFunction<PoolSample> value) {
        return samples.stream().mapToLong(value).max().orElse(0);
    }

    private static void line(
            StringBuilder out, String series, List<PoolSample> samples, ToLongFunction<PoolSample> value, long max) {
        long first = samples.get(0).atMs();
        long span = Math.max(1, samples.get(samples.size() - 1).atMs() - first);
        out.append("<polyline class=\"").append(series).append("\" points=\"");
        for (PoolSample sample : samples) {
            double x = PAD + (WIDTH - 2.0 * PAD) * (sample.atMs() - first) / span;
            double y = HEIGHT - PAD - (HEIGHT - 2.0 * PAD) * Math.min(value.applyAsLong(sample), max) / max;
            out.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        out.setLength(out.length() - 1);
        out.append("\"/>");
    }
}
