package dev.backstage.runtime.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS material for a broker connection, as PEM files (what a mounted {@code kubernetes.io/tls} or CA Secret holds):
 * a CA bundle to trust instead of the JDK's default roots, and optionally a client certificate chain and its key.
 * Provider-neutral: each provider hands these to its client library (lettuce, amqp-client, kafka-clients, the JDK's
 * HTTP client). The files are read each time a context is built, so a reconnect after a rotation sees the new ones.
 *
 * <p>Options ({@link ProviderSettings#options()}): {@value #OPT_CA_FILE}, {@value #OPT_CERT_FILE} and
 * {@value #OPT_KEY_FILE} (the last two together).
 *
 * @param caFile   PEM CA bundle; null to trust the JDK's default roots
 * @param certFile PEM client certificate (then any intermediates); null for no client certificate
 * @param keyFile  PEM private key of {@code certFile} (PKCS#8, PKCS#1 or SEC1, unencrypted)
 */
public record BrokerTls(Path caFile, Path certFile, Path keyFile) {
    public static final String OPT_CA_FILE = "tlsCaFile";
    public static final String OPT_CERT_FILE = "tlsCertFile";
    public static final String OPT_KEY_FILE = "tlsKeyFile";
    /** The option names, for providers' known-option lists. */
    public static final Set<String> OPTIONS = Set.of(OPT_CA_FILE, OPT_CERT_FILE, OPT_KEY_FILE);

    public BrokerTls {
        if ((certFile == null) != (keyFile == null)) {
            throw new ConfigurationException(
                    "TLS client certificate: set both " + OPT_CERT_FILE + " and " + OPT_KEY_FILE + ", or neither");
        }
        for (Path file : new Path[] {caFile, certFile, keyFile}) {
            if (file != null && !Files.isReadable(file)) {
                throw new ConfigurationException(
                        "TLS file " + file + " does not exist or is not readable; mount it or" + " fix the path");
            }
        }
    }

    /** The TLS files named in {@code options}, or empty when none is. */
    public static Optional<BrokerTls> from(Map<String, String> options) {
        Path ca = path(options, OPT_CA_FILE);
        Path cert = path(options, OPT_CERT_FILE);
        Path key = path(options, OPT_KEY_FILE);
        return ca == null && cert == null && key == null ? Optional.empty() : Optional.of(new BrokerTls(ca, cert, key));
    }

    private static Path path(Map<String, String> options, String key) {
        String value = options.get(key);
        return value == null || value.isBlank() ? null : Path.of(value.trim());
    }

    public boolean hasClientCertificate() {
        return certFile != null;
    }

    /** Trust managers for the CA bundle, or the JDK's default roots when there is none. */
    public TrustManagerFactory trustManagers() {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (caFile == null) {
                factory.init((KeyStore) null);
                return factory;
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            List<X509Certificate> bundle = PemKeyPair.readCertificates(caFile);
            for (int i = 0; i < bundle.size(); i++) {
                store.setCertificateEntry("ca-" + i, bundle.get(i));
            }
            factory.init(store);
            return factory;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigurationException("TLS CA bundle " + caFile + " is not usable: " + e.getMessage(), e);
        }
    }

    /** Key managers presenting the client certificate, or null when there is none. */
    public KeyManagerFactory keyManagers() {
        if (certFile == null) {
            return null;
        }
        try {
            PemKeyPair pair = clientKeyPair();
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] password = new char[0];
            store.setKeyEntry("client", pair.key(), password, pair.chain().toArray(new X509Certificate[0]));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigurationException("TLS client key store is not usable: " + e.getMessage(), e);
        }
    }

    /** The client certificate and key, read now. */
    public PemKeyPair clientKeyPair() {
        try {
            return PemKeyPair.read(certFile, keyFile);
        } catch (IOException | GeneralSecurityException e) {
            // The message names the files, never their contents.
            throw new ConfigurationException(
                    "TLS client certificate " + certFile + " / key " + keyFile + " is not usable: " + e.getMessage(),
                    e);
        }
    }

    /** A TLS context trusting the CA bundle and presenting the client certificate, if any. */
    public SSLContext sslContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            KeyManagerFactory keys = keyManagers();
            context.init(
                    keys == null ? null : keys.getKeyManagers(), trustManagers().getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new ConfigurationException("TLS context cannot be built: " + e.getMessage(), e);
        }
    }
}
