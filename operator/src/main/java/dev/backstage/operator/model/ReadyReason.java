package dev.backstage.operator.model;

import dev.backstage.runtime.spi.ConnectionFailure;

/**
 * The closed set of reasons on a topology's Ready condition. The pool reconciler and users read them; each
 * failure reason names what to look at.
 */
public final class ReadyReason {
    /** Ready=True: every declared object exists on the broker. */
    public static final String DECLARED = "Declared";
    /** The spec cannot be turned into a broker request (it slipped past admission, or the provider refused it). */
    public static final String INVALID_SPEC = "InvalidSpec";
    /** The connection Secret, or its key, does not exist. */
    public static final String SECRET_NOT_FOUND = "SecretNotFound";
    /** The broker did not answer (refused, timed out, unknown host). */
    public static final String BROKER_UNREACHABLE = "BrokerUnreachable";
    /** The broker answered but refused the credentials. */
    public static final String AUTHENTICATION_FAILED = "AuthenticationFailed";
    /** The broker's certificate does not chain to the configured CA bundle (spec.tls.caBundle) or the JVM's roots. */
    public static final String TLS_UNTRUSTED = ConnectionFailure.TLS_UNTRUSTED.reason();
    /** The broker's certificate is trusted but does not name the host in the connection URL. */
    public static final String TLS_HOSTNAME_MISMATCH = ConnectionFailure.TLS_HOSTNAME_MISMATCH.reason();
    /** The broker's certificate (or one of its chain) has expired or is not valid yet. */
    public static final String TLS_CERTIFICATE_EXPIRED = ConnectionFailure.TLS_CERTIFICATE_EXPIRED.reason();
    /** The broker refused the client certificate (spec.tls.clientCertificateSecret), or wanted one and got none. */
    public static final String TLS_CLIENT_CERTIFICATE_REJECTED =
            ConnectionFailure.TLS_CLIENT_CERTIFICATE_REJECTED.reason();
    /** An object exists on the broker with another type or other settings than the topology declares. */
    public static final String CONFLICT = "Conflict";
    /** The broker refused to create an object for another reason (its message is in the condition). */
    public static final String DECLARATION_FAILED = "DeclarationFailed";
    /** A capability the topology needs (delays for Kafka jobs, topics) has no backend. */
    public static final String CAPABILITY_MISSING = "CapabilityMissing";

    private ReadyReason() {}
}
