package dev.backstage.operator.scaling.sim;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Time to reach the needed replicas. "Needed" comes from the trace alone, the same for every autoscaler:
 * {@code ceil(arrival rate / per-replica rate)}, capped at what the pool may run. Each time it rises, a clock
 * starts; it stops when that many replicas are ready. A rise whose need falls away again (or the run ends)
 * before it is reached counts with the time it waited, as "not reached" — a lower bound.
 */
final class ReachTracker {
    private record Rise(long atMs, int level) {}

    private final List<Rise> pending = new ArrayList<>();
    private final List<Double> reachSeconds = new ArrayList<>();
    private int lastNeed;
    private int unreached;

    void observe(long nowMs, int need, int ready) {
        if (need > lastNeed) {
            pending.add(new Rise(nowMs, need));
        }
        lastNeed = need;
        for (Iterator<Rise> it = pending.iterator(); it.hasNext(); ) {
            Rise rise = it.next();
            if (ready >= rise.level()) {
                reachSeconds.add((nowMs - rise.atMs()) / 1000.0);
                it.remove();
            } else if (need < rise.level()) {
                reachSeconds.add((nowMs - rise.atMs()) / 1000.0);
                unreached++;
                it.remove();
            }
        }
    }

    void finish(long endMs) {
        for (Rise rise : pending) {
            reachSeconds.add((endMs - rise.atMs()) / 1000.0);
            unreached++;
        }
        pending.clear();
    }

    List<Double> reachSeconds() {
        return reachSeconds;
    }

    int unreached() {
        return unreached;
    }
}
