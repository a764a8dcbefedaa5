package dev.backstage.operator.pool;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;

/** Recognises optimistic-locking conflicts (HTTP 409), also inside JOSDK's aggregated workflow errors. */
final class Conflicts {
    private Conflicts() {}

    /** True when every failure in {@code e} is a 409 conflict. */
    static boolean isConflict(Exception e) {
        List<Throwable> failures = failures(e);
        return !failures.isEmpty() && failures.stream().allMatch(Conflicts::conflictInChain);
    }

    static String describe(Exception e) {
        return failures(e).stream().map(t -> t.getClass().getSimpleName()).distinct().toList().toString();
    }

    private static List<Throwable> failures(Exception e) {
        List<Throwable> failures = new ArrayList<>();
        if (e instanceof AggregatedOperatorException aggregated) {
            failures.addAll(aggregated.getAggregatedExceptions().values());
        } else {
            failures.add(e);
        }
        return failures;
    }

    private static boolean conflictInChain(Throwable t) {
        for (Throwable cause = t; cause != null; cause = cause.getCause()) {
            if (cause instanceof KubernetesClientException k && k.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }
}
