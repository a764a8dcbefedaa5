package dev.backstage.runtime.spi;

import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.util.Locale;
import java.util.Optional;

/**
 * Why a broker connection was refused, when the reason is one a person fixes in credentials or certificates: a closed
 * set, the same for every provider, read from the failure's cause chain (the JDK's TLS exceptions, and each client
 * library's authentication failure). The worker puts it at the head of its one-line error ({@code /readyz}, logs),
 * the operator on the topology's Ready condition.
 */
public enum ConnectionFailure {
    /** The broker refused the user name or password (or the SASL exchange). */
    AUTHENTICATION_FAILED("AuthenticationFailed"),
    /** The broker's certificate does not chain to the configured CA bundle (or the JDK's roots). */
    TLS_UNTRUSTED("TLSUntrusted"),
    /** The broker's certificate is trusted but names another host than the one connected to. */
    TLS_HOSTNAME_MISMATCH("TLSHostnameMismatch"),
    /** The broker's certificate (or one in its chain) has expired or is not yet valid. */
    TLS_CERTIFICATE_EXPIRED("TLSCertificateExpired"),
    /** The broker refused the client certificate, or asked for one and none was configured. */
    TLS_CLIENT_CERTIFICATE_REJECTED("TLSClientCertificateRejected");

    private final String reason;

    ConnectionFailure(String reason) {
        this.reason = reason;
    }

    /** The CamelCase reason, as on a condition. */
    public String reason() {
        return reason;
    }

    /** The reason for {@code failure}, or empty when it is none of these (e.g. the broker is unreachable). */
    public static Optional<ConnectionFailure> of(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CertificateExpiredException
                    || t instanceof java.security.cert.CertificateNotYetValidException
                    || (t instanceof CertPathValidatorException v
                            && (v.getReason() == CertPathValidatorException.BasicReason.EXPIRED
                                    || v.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID))) {
                return Optional.of(TLS_CERTIFICATE_EXPIRED);
            }
            text.append(' ').append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        return ofMessage(text.toString());
    }

    /** The reason a message alone shows (e.g. a failure already turned into text), or empty. */
    public static Optional<ConnectionFailure> ofMessage(String message) {
        String text = message == null ? "" : message.toLowerCase(Locale.ROOT);
        for (ConnectionFailure failure : values()) {
            if (text.startsWith(failure.reason.toLowerCase(Locale.ROOT) + ": ")
                    || text.contains(" " + failure.reason.toLowerCase(Locale.ROOT) + ": ")) {
                return Optional.of(failure); // a message this class already labelled
            }
        }
        if (text.contains("certificateexpired")
                || text.contains("validity check failed")
                || text.contains("certificate expired")
                || text.contains("certificate_expired")) {
            return Optional.of(TLS_CERTIFICATE_EXPIRED);
        }
        if (text.contains("no subject alternative") || text.contains("no name matching")) {
            return Optional.of(TLS_HOSTNAME_MISMATCH);
        }
        if (text.contains("unable to find valid certification path")
                || text.contains("pkix path building failed")
                || text.contains("pkix path validation failed")) {
            return Optional.of(TLS_UNTRUSTED);
        }
        if (text.contains("certificate_required")
                || text.contains("bad_certificate")
                || text.contains("unknown_ca")
                || text.contains("peer sent no certificate")) {
            return Optional.of(TLS_CLIENT_CERTIFICATE_REJECTED);
        }
        if (text.contains("wrongpass")
                || text.contains("noauth")
                || text.contains("login was refused")
                || text.contains("authenticationfailureexception")
                || text.contains("saslauthenticationexception")
                || text.contains("authentication failed")
                || text.contains("invalid username-password")) {
            return Optional.of(AUTHENTICATION_FAILED);
        }
        return Optional.empty();
    }

    /** {@code "<Reason>: "} for a failure with a reason, else empty: the head of a one-line error. */
    public static String label(Throwable failure) {
        return of(failure).map(f -> f.reason + ": ").orElse("");
    }
}
