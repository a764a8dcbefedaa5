package dev.backstage.operator.admission;

import dev.backstage.runtime.spi.PemKeyPair;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the key pair in {@code tls.crt} / {@code tls.key} and re-reads it when either file changes, so a certificate
 * rotated by cert-manager (the kubelet swaps the mounted Secret's files) is served from the next handshake on,
 * without a restart. A rotation caught half-written keeps the previous pair and logs why.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
    static final String ALIAS = "webhook";
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);

    private final Path certificateFile;
    private final Path keyFile;
    private volatile Loaded current;

    private record Loaded(FileTime certificateTime, FileTime keyTime, X509KeyManager delegate) {}

    /** Reads the pair now, failing if it cannot (the server must not start without a certificate). */
    ReloadingKeyManager(Path certificateFile, Path keyFile) throws IOException, GeneralSecurityException {
        this.certificateFile = Objects.requireNonNull(certificateFile, "certificateFile");
        this.keyFile = Objects.requireNonNull(keyFile, "keyFile");
        this.current = load();
    }

    private Loaded load() throws IOException, GeneralSecurityException {
        FileTime certificateTime = Files.getLastModifiedTime(certificateFile);
        FileTime keyTime = Files.getLastModifiedTime(keyFile);
        PemKeyPair pair = PemKeyPair.read(certificateFile, keyFile);
        char[] password = new char[16];
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < password.length; i++) {
            password[i] = (char) ('a' + random.nextInt(26));
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry(ALIAS, pair.key(), password, pair.chain().toArray(new X509Certificate[0]));
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        Arrays.fill(password, '\0');
        X509KeyManager delegate = Arrays.stream(factory.getKeyManagers())
                .filter(X509KeyManager.class::isInstance)
                .map(X509KeyManager.class::cast)
                .findFirst()
                .orElseThrow(() -> new GeneralSecurityException("no X509KeyManager"));
        return new Loaded(certificateTime, keyTime, delegate);
    }

    private X509KeyManager delegate() {
        Loaded loaded = current;
        try {
            if (!Files.getLastModifiedTime(certificateFile).equals(loaded.certificateTime())
                    || !Files.getLastModifiedTime(keyFile).equals(loaded.keyTime())) {
                synchronized (this) {
                    if (current == loaded) {
                        current = load();
                        LOG.info("webhook TLS key pair reloaded from {}", certificateFile.getParent());
                    }
                }
            }
        } catch (IOException | GeneralSecurityException e) {
            LOG.warn(
                    "webhook TLS key pair in {} changed but could not be read ({}); serving the previous one",
                    certificateFile.getParent(),
                    e.toString());
        }
        return current.delegate();
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return delegate().chooseServerAlias(keyType, issuers, null);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return delegate().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return current.delegate().getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return current.delegate().getPrivateKey(alias);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return delegate().getServerAliases(keyType, issuers);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
