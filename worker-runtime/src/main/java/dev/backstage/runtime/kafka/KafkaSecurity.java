package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.BrokerUrl;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.PemKeyPair;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * How the provider's Kafka clients authenticate and encrypt, turned into kafka-clients properties when each client
 * is created (so a client made after a rotation reads the new files):
 * <ul>
 *   <li>SASL credentials from the URL's user-info ({@code kafka://user:password@host:9093}), mechanism
 *       {@value #OPT_SASL_MECHANISM} (default {@code SCRAM-SHA-512}; {@code SCRAM-SHA-256} and {@code PLAIN} too);
 *   <li>TLS when option {@value #OPT_TLS} is {@code true} or any TLS file is set: the CA bundle and client
 *       certificate as PEM (kafka-clients' {@code PEM} store type, no JKS); the server's host name is verified.
 * </ul>
 * {@code security.protocol} follows: {@code SASL_SSL}, {@code SSL}, {@code SASL_PLAINTEXT} or none.
 * {@code toString} never shows the password.
 */
public record KafkaSecurity(boolean tlsEnabled, BrokerTls tls, String mechanism, String username, String password) {
    public static final String OPT_TLS = "tls";
    public static final String OPT_SASL_MECHANISM = "saslMechanism";
    public static final Set<String> OPTIONS =
            Set.of(OPT_TLS, OPT_SASL_MECHANISM, BrokerTls.OPT_CA_FILE, BrokerTls.OPT_CERT_FILE, BrokerTls.OPT_KEY_FILE);
    public static final KafkaSecurity NONE = new KafkaSecurity(false, null, null, null, null);
    private static final Set<String> MECHANISMS = Set.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");

    public KafkaSecurity {
        if (username != null && !MECHANISMS.contains(mechanism)) {
            throw new ConfigurationException("Kafka option " + OPT_SASL_MECHANISM + " must be one of " + MECHANISMS
                    + ", got '" + mechanism + "'");
        }
    }

    /** The security part of a bootstrap URL and options; {@code url} may carry {@code user:password@}. */
    static KafkaSecurity from(String url, Map<String, String> options) {
        BrokerTls tls = BrokerTls.from(options).orElse(null);
        String tlsOption = options.getOrDefault(OPT_TLS, "");
        if (!tlsOption.isEmpty() && !tlsOption.equals("true") && !tlsOption.equals("false")) {
            throw new ConfigurationException(
                    "Kafka option " + OPT_TLS + " must be true or false, got '" + tlsOption + "'");
        }
        boolean tlsEnabled = tls != null || tlsOption.equals("true");
        String mechanism = options.getOrDefault(OPT_SASL_MECHANISM, "SCRAM-SHA-512");
        BrokerUrl parsed = BrokerUrl.parse(url, BrokerUrl.KAFKA);
        if (parsed.username() == null) {
            return new KafkaSecurity(tlsEnabled, tls, mechanism, null, null);
        }
        if (parsed.password() == null) {
            throw new ConfigurationException("the kafka URL's user-info must be user:password (percent-encoded), "
                    + "e.g. kafka://user:password@host:9093");
        }
        return new KafkaSecurity(tlsEnabled, tls, mechanism, parsed.username(), parsed.password());
    }

    /** The bootstrap list without scheme or credentials; a {@link ConfigurationException} for a malformed URL. */
    static String hosts(String url) {
        BrokerUrl parsed = BrokerUrl.parse(url.trim(), BrokerUrl.KAFKA);
        if (!parsed.path().isEmpty()) {
            throw new ConfigurationException("the kafka URL has a path or query; give host:port[,host:port…]");
        }
        return String.join(",", parsed.hosts());
    }

    /** kafka-clients properties for this security, reading the TLS files now. */
    Map<String, Object> clientProperties() {
        Map<String, Object> config = new HashMap<>();
        boolean sasl = username != null;
        if (!tlsEnabled && !sasl) {
            return config;
        }
        config.put(
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
                tlsEnabled ? (sasl ? "SASL_SSL" : "SSL") : "SASL_PLAINTEXT");
        if (sasl) {
            config.put(SaslConfigs.SASL_MECHANISM, mechanism);
            String module = mechanism.equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            config.put(
                    SaslConfigs.SASL_JAAS_CONFIG,
                    module + " required username=\"" + quote(username) + "\" password=\"" + quote(password) + "\";");
        }
        if (tls != null) {
            config.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "https");
            if (tls.caFile() != null) {
                config.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
                config.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, caBundlePem(tls));
            }
            if (tls.hasClientCertificate()) {
                PemKeyPair pair = tls.clientKeyPair();
                config.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
                config.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, pair.chainPem());
                config.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, pair.pkcs8Pem());
            }
        }
        return config;
    }

    /** The bundle re-encoded, so whatever the file holds besides certificates (comments, keys) is dropped. */
    private static String caBundlePem(BrokerTls tls) {
        try {
            StringBuilder out = new StringBuilder();
            for (X509Certificate certificate : PemKeyPair.readCertificates(tls.caFile())) {
                out.append(PemKeyPair.certificatePem(certificate));
            }
            return out.toString();
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigurationException("TLS CA bundle " + tls.caFile() + " is not usable: " + e.getMessage(), e);
        }
    }

    private static String quote(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    @Override
    public String toString() {
        return "KafkaSecurity[tls=" + tlsEnabled + ", sasl="
                + (username == null ? "none" : mechanism + " as " + username) + "]";
    }
}
