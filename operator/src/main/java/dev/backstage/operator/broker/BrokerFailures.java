package dev.backstage.operator.broker;

import dev.backstage.operator.model.ReadyReason;
import dev.backstage.runtime.spi.ConnectionFailure;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Turns a broker client's failure into a {@link TopologyProblem}: a reason from the closed set, and the
 * broker's own message (scrubbed). It reads exception class names and messages along the cause chain rather than
 * catching each client library's types, so the operator stays free of broker protocol and new providers fit in.
 */
public final class BrokerFailures {
    private BrokerFailures() {}

    public static TopologyProblem classify(String what, Throwable failure, SecretScrubber scrubber) {
        return new TopologyProblem(reason(failure), scrubber.scrub(what + ": " + describe(failure)));
    }

    /** True for the reasons a person fixes in credentials or certificates (not the network, not the spec). */
    public static boolean isCredentialOrCertificate(String reason) {
        for (ConnectionFailure failure : ConnectionFailure.values()) {
            if (failure.reason().equals(reason)) {
                return true;
            }
        }
        return ReadyReason.AUTHENTICATION_FAILED.equals(reason);
    }

    /** A reason for a broker's message alone (e.g. a declarer's per-object failure detail). */
    public static String reasonForMessage(String message) {
        java.util.Optional<ConnectionFailure> connection = ConnectionFailure.ofMessage(message);
        if (connection.isPresent()) {
            return connection.get().reason(); // AuthenticationFailed or a TLS reason: the same words as the workers'
        }
        String text = message == null ? "" : message.toLowerCase(Locale.ROOT);
        if (isAuthentication(text)) {
            return ReadyReason.AUTHENTICATION_FAILED;
        }
        if (isConflict(text)) {
            return ReadyReason.CONFLICT;
        }
        if (isUnreachable(text)) {
            return ReadyReason.BROKER_UNREACHABLE;
        }
        if (text.contains("invalidreplicationfactor")
                || text.contains("invalidpartitions")
                || text.contains("invalidtopic")
                || text.contains("configurationexception")) {
            return ReadyReason.INVALID_SPEC;
        }
        return ReadyReason.DECLARATION_FAILED;
    }

    static String reason(Throwable failure) {
        java.util.Optional<ConnectionFailure> connection = ConnectionFailure.of(failure);
        if (connection.isPresent()) {
            return connection.get().reason();
        }
        StringBuilder chain = new StringBuilder();
        boolean network = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            network |= t instanceof ConnectException
                    || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException
                    || t instanceof SocketTimeoutException
                    || t instanceof TimeoutException;
            chain.append(' ').append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        String byText = reasonForMessage(chain.toString());
        // Auth failures can surface wrapped in a connect failure, so the text decides first; a network exception
        // in the chain otherwise means the broker was not reached, whatever the wrapper says.
        if (network && !ReadyReason.AUTHENTICATION_FAILED.equals(byText)) {
            return ReadyReason.BROKER_UNREACHABLE;
        }
        return byText;
    }

    /** The root cause's class and message, which is where broker clients put the broker's own words. */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = failure.getMessage();
        String rootText = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
        if (root == failure || top == null || top.isBlank()) {
            return rootText;
        }
        return top.contains(String.valueOf(root.getMessage())) ? top : top + " (" + rootText + ")";
    }

    private static boolean isAuthentication(String text) {
        return text.contains("noauth")
                || text.contains("wrongpass")
                || text.contains("invalid password")
                || text.contains("access_refused")
                || text.contains("authenticationfailure")
                || text.contains("authenticationexception")
                || text.contains("authentication failed")
                || text.contains("sasl")
                || text.contains("not authorized")
                || text.contains("authorizationexception");
    }

    private static boolean isConflict(String text) {
        return text.contains("wrongtype")
                || text.contains("precondition_failed")
                || text.contains("inequivalent arg")
                || text.contains("already exists with");
    }

    private static boolean isUnreachable(String text) {
        return text.contains("connection refused")
                || text.contains("unable to connect")
                || text.contains("timed out")
                || text.contains("timeout")
                || text.contains("unknownhost")
                || text.contains("unreachable")
                || text.contains("no route to host")
                || text.contains("connection reset")
                || text.contains("disconnected")
                || text.contains("brokerunavailable");
    }
}
