package dev.backstage.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.util.Optional;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * The classification on cause chains shaped like the clients' (the broker tests show the real ones); the order
 * matters where a chain could match two reasons.
 */
class ConnectionFailureTest {
    private static Throwable wrapped(Throwable root) {
        return new IllegalStateException(
                "Unable to connect to localhost/127.0.0.1:6380", new IOException("handshake", root));
    }

    @Test
    void givenAnExpiredCertificate_thenItIsExpiredEvenThoughPkixValidationFailedToo() {
        CertPathValidatorException validation = new CertPathValidatorException(
                "validity check failed", new CertificateExpiredException("NotAfter: Mon Nov 30 17:07:49 UTC 2026"));
        Throwable chain = wrapped(new SSLHandshakeException("PKIX path validation failed: " + validation));
        chain.getCause().getCause().initCause(validation);
        assertEquals(Optional.of(ConnectionFailure.TLS_CERTIFICATE_EXPIRED), ConnectionFailure.of(chain));
    }

    @Test
    void givenEachClientsFailureWords_thenTheirReasonIsRecognised() {
        assertEquals(
                Optional.of(ConnectionFailure.TLS_UNTRUSTED),
                ConnectionFailure.of(wrapped(new SSLHandshakeException(
                        "PKIX path building failed: unable to find valid certification path to requested target"))));
        assertEquals(
                Optional.of(ConnectionFailure.TLS_HOSTNAME_MISMATCH),
                ConnectionFailure.of(wrapped(
                        new CertificateException("No subject alternative names matching IP address 127.0.0.2 found"))));
        assertEquals(
                Optional.of(ConnectionFailure.TLS_CLIENT_CERTIFICATE_REJECTED),
                ConnectionFailure.of(wrapped(new SSLHandshakeException("Received fatal alert: bad_certificate"))));
        assertEquals(
                Optional.of(ConnectionFailure.AUTHENTICATION_FAILED),
                ConnectionFailure.of(wrapped(
                        new RuntimeException("WRONGPASS invalid username-password pair or user is disabled."))));
        assertEquals(
                Optional.of(ConnectionFailure.AUTHENTICATION_FAILED),
                ConnectionFailure.of(wrapped(new RuntimeException(
                        "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN."))));
        assertEquals(
                Optional.empty(), ConnectionFailure.of(wrapped(new java.net.ConnectException("Connection refused"))));
    }

    @Test
    void givenAMessageAlreadyLabelled_thenItKeepsItsReason_andALabelIsTheHeadOfALine() {
        assertEquals(
                Optional.of(ConnectionFailure.TLS_UNTRUSTED),
                ConnectionFailure.ofMessage(
                        "kafka health check: TLSUntrusted: Kafka unreachable: SslAuthenticationException"));
        assertEquals(
                "TLSHostnameMismatch: ",
                ConnectionFailure.label(new CertificateException("No name matching broker.example found")));
        assertEquals("", ConnectionFailure.label(new java.net.ConnectException("Connection refused")));
    }
}
