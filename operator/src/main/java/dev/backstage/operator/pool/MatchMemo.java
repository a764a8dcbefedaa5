package dev.backstage.operator.pool;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The dependents' memory of what already matched: per object (uid), the resourceVersion that was found to match and the
 * desired state it matched. The server-side-apply matcher's answer depends only on those two (the object's
 * resourceVersion pins all of it, managed fields included), so when neither changed the answer is the same and the
 * matcher, which serializes and walks both objects, need not run. That is most reconciles of a pool: its status
 * writes, the autoscaler's, its topology's and timed re-checks all reconcile with the same Deployment and ConfigMap
 * (at 1,000 pools, the matcher was the largest part of the reconcilers' CPU; {@code bin/bench operator-scale}, JFR).
 * Desired states are compared with {@code equals}, not a hash, so a change is never mistaken for a match; the memo keeps
 * its own copy of each (the matcher adds owner references to the one it is given).
 */
final class MatchMemo<R extends HasMetadata> {
    /** Objects remembered, at most (least recently used first out); a miss only costs a full match. */
    static final int REMEMBERED = 16_384;

    private record Matched<R>(String resourceVersion, R desired) {}

    private final UnaryOperator<R> copy;
    private final Map<String, Matched<R>> matched = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Matched<R>> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** @param copy a deep copy of a desired state (its builder's copy constructor: no serialization) */
    MatchMemo(UnaryOperator<R> copy) {
        this.copy = Objects.requireNonNull(copy, "copy");
    }

    /** True when {@code actual}, as it is now, was found to match exactly this desired state before. */
    private boolean matchedBefore(R actual, R desired) {
        Matched<R> before;
        synchronized (matched) {
            before = matched.get(actual.getMetadata().getUid());
        }
        return before != null
                && Objects.equals(before.resourceVersion(), actual.getMetadata().getResourceVersion())
                && before.desired().equals(desired);
    }

    /**
     * Runs {@code matcher} unless {@code actual} and {@code desired} matched before, and remembers a match.
     *
     * @param desired the desired state as built, before the matcher adds anything to it
     */
    Matcher.Result<R> match(R actual, R desired, Supplier<Matcher.Result<R>> matcher) {
        if (matchedBefore(actual, desired)) {
            return Matcher.Result.computed(true, desired);
        }
        R asBuilt = copy.apply(desired);
        Matcher.Result<R> result = matcher.get();
        String uid = actual.getMetadata().getUid();
        if (result.matched() && uid != null && actual.getMetadata().getResourceVersion() != null) {
            synchronized (matched) {
                matched.put(uid, new Matched<>(actual.getMetadata().getResourceVersion(), asBuilt));
            }
        }
        return result;
    }
}
