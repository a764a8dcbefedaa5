package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A pool's pod start-up as measured, not configured: from each recent pod's creation to its Ready condition, the
 * median over the newest {@link #RECENT_PODS} pods, once {@link #MIN_PODS} were seen. The decider sizes for the
 * arrivals expected when pods asked for now are ready, so this is the horizon it looks ahead.
 *
 * <p>Robust on purpose: the median ignores a pod that waited for a node or an image pull nobody else needed, and a
 * pod whose Ready time lies more than {@link #IMPLAUSIBLE} after its creation is left out altogether (it went
 * NotReady and Ready again later, e.g. through a broker outage: the transition time is no longer its start-up).
 */
public final class PodStartupTimes {
    /** Pods measured before the figure replaces the configured {@code podStartupTime}. */
    public static final int MIN_PODS = 3;
    /** The newest pods (by creation) the median is taken over. */
    public static final int RECENT_PODS = 20;
    /** A creation → Ready time beyond this is a later readiness flip, not a start-up. */
    public static final Duration IMPLAUSIBLE = Duration.ofMinutes(10);

    private PodStartupTimes() {}

    /**
     * One pod: when it was created, and when its Ready condition last became True ({@code null} while not Ready).
     */
    public record PodStart(Instant created, Instant ready) {
        public PodStart {
            Objects.requireNonNull(created, "created");
        }
    }

    /** The measured start-up and how many pods it is the median of. */
    public record Measured(Duration startup, int pods) {}

    /** The median start-up of the newest ready pods, or empty while fewer than {@link #MIN_PODS} qualify. */
    public static Optional<Measured> measure(List<PodStart> pods) {
        List<PodStart> ready = new ArrayList<>();
        for (PodStart pod : pods) {
            if (pod.ready() == null || pod.ready().isBefore(pod.created())) {
                continue;
            }
            if (Duration.between(pod.created(), pod.ready()).compareTo(IMPLAUSIBLE) > 0) {
                continue;
            }
            ready.add(pod);
        }
        if (ready.size() < MIN_PODS) {
            return Optional.empty();
        }
        ready.sort(Comparator.comparing(PodStart::created).reversed());
        List<Duration> times = new ArrayList<>();
        for (PodStart pod : ready.subList(0, Math.min(RECENT_PODS, ready.size()))) {
            times.add(Duration.between(pod.created(), pod.ready()));
        }
        times.sort(Comparator.naturalOrder());
        int n = times.size();
        Duration median = n % 2 == 1
                ? times.get(n / 2)
                : times.get(n / 2 - 1).plus(times.get(n / 2)).dividedBy(2);
        return Optional.of(new Measured(median, n));
    }
}
