package dev.backstage.operator.pool;

import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The individual failures inside what a reconcile threw. JOSDK wraps a failed workflow as an
 * {@link AggregatedOperatorException} (one entry per dependent), itself sometimes wrapped again.
 */
final class WorkflowFailures {
    private WorkflowFailures() {}

    /** Dependent name → its failure; or {@code "reconcile"} → {@code e} when no workflow failure is inside. */
    static Map<String, Throwable> of(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof AggregatedOperatorException aggregated) {
                return new LinkedHashMap<>(aggregated.getAggregatedExceptions());
            }
        }
        Map<String, Throwable> single = new LinkedHashMap<>();
        single.put("reconcile", e);
        return single;
    }
}
