package dev.backstage.e2e.bench;

import java.util.List;
import java.util.Locale;

/**
 * One trace's figures in {@link KedaComparisonBenchmark}, both sides measured over the same window.
 *
 * @param seconds    the window: the trace's arrivals and the tail after them
 * @param settled    whether both sides finished every order and came back to 1 replica within the tail limit
 * @param loadBefore the 1-minute load average when the trace started
 * @param loadAfter  the same at its end
 */
record TraceResult(
        ArrivalTrace trace,
        double seconds,
        boolean settled,
        String loadBefore,
        String loadAfter,
        List<SideResult> sides) {

    /** One side's figures. */
    record SideResult(
            String side,
            double replicaSeconds,
            long p99WaitMillis,
            long maxWaitMillis,
            int done,
            long orders,
            int scaleEvents,
            int maxPods,
            int killed,
            int startPods,
            int endPods) {}

    void print() {
        System.out.printf(
                Locale.ROOT,
                "%s: window %.0f s (%s), load %s -> %s%n",
                trace.name(),
                seconds,
                settled ? "both back to 1 replica, every order done" : "tail limit reached",
                loadBefore,
                loadAfter);
        for (SideResult s : sides) {
            System.out.printf(
                    Locale.ROOT,
                    "  %-5s replica-s %7.0f  p99 wait %6.1f s  max wait %6.1f s  done %d/%d"
                            + "  scale events %2d  pods at start %2d, max %2d, at end %2d  jobs killed %d%n",
                    s.side(),
                    s.replicaSeconds(),
                    s.p99WaitMillis() / 1000.0,
                    s.maxWaitMillis() / 1000.0,
                    s.done(),
                    s.orders(),
                    s.scaleEvents(),
                    s.startPods(),
                    s.maxPods(),
                    s.endPods(),
                    s.killed());
        }
    }

    static void printTable(List<TraceResult> results, String kedaVersion) {
        System.out.printf("%nSUMMARY (ours / KEDA %s)%n", kedaVersion);
        System.out.println(
                "| trace | window s | replica-s ours / KEDA | p99 wait s ours / KEDA | scale events ours / KEDA"
                        + " | max pods ours / KEDA | jobs killed ours / KEDA | load |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (TraceResult r : results) {
            SideResult a = r.sides().get(0);
            SideResult b = r.sides().get(1);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.0f%s | %.0f / %.0f | %.1f / %.1f | %d / %d | %d / %d | %d / %d | %s -> %s |%n",
                    r.trace().name(),
                    r.seconds(),
                    r.settled() ? "" : " (limit)",
                    a.replicaSeconds(),
                    b.replicaSeconds(),
                    a.p99WaitMillis() / 1000.0,
                    b.p99WaitMillis() / 1000.0,
                    a.scaleEvents(),
                    b.scaleEvents(),
                    a.maxPods(),
                    b.maxPods(),
                    a.killed(),
                    b.killed(),
                    r.loadBefore(),
                    r.loadAfter());
        }
    }
}
