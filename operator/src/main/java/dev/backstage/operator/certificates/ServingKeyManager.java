package dev.backstage.operator.certificates;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * The webhook server's key manager: serves the pair last handed to {@link #use}, from the next TLS handshake on,
 * so a rotated certificate needs no restart. Serves nothing (handshakes fail) until the first pair arrives. Each
 * pair has its own alias (its serial), and the pair before the current one stays readable by its alias, so a
 * handshake that chose its alias just before a swap still gets a matching chain and key.
 */
public final class ServingKeyManager extends X509ExtendedKeyManager {
    private record Served(String alias, X509KeyManager keys) {}

    private volatile Served current;
    private volatile Served previous;

    /** Serves {@code material}'s serving pair from now on (a no-op when it is already served). */
    public synchronized void use(WebhookKeyMaterial material) {
        String alias = material.serving().serial();
        Served now = current;
        if (now != null && now.alias().equals(alias)) {
            return;
        }
        Served next = new Served(
                alias,
                keyManager(
                        alias, material.serving().key(), material.servingChain().toArray(new X509Certificate[0])));
        previous = now;
        current = next;
    }

    /** The serial of the certificate served now, in hex; empty before the first {@link #use}. */
    public String servingSerial() {
        Served now = current;
        return now == null ? "" : now.alias();
    }

    private X509KeyManager byAlias(String alias) {
        Served now = current;
        if (now != null && now.alias().equals(alias)) {
            return now.keys();
        }
        Served before = previous;
        return before != null && before.alias().equals(alias) ? before.keys() : null;
    }

    private static X509KeyManager keyManager(String alias, PrivateKey key, X509Certificate[] chain) {
        try {
            char[] password = new char[16];
            SecureRandom random = new SecureRandom();
            for (int i = 0; i < password.length; i++) {
                password[i] = (char) ('a' + random.nextInt(26));
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(alias, key, password, chain);
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            Arrays.fill(password, '\0');
            return Arrays.stream(factory.getKeyManagers())
                    .filter(X509KeyManager.class::isInstance)
                    .map(X509KeyManager.class::cast)
                    .findFirst()
                    .orElseThrow(() -> new GeneralSecurityException("no X509KeyManager"));
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot load the webhook serving key: " + e.getMessage(), e);
        }
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        Served now = current;
        return now == null ? null : now.keys().chooseServerAlias(keyType, issuers, null);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        Served now = current;
        return now == null ? null : now.keys().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        X509KeyManager keys = byAlias(alias);
        return keys == null ? null : keys.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        X509KeyManager keys = byAlias(alias);
        return keys == null ? null : keys.getPrivateKey(alias);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        Served now = current;
        return now == null ? null : now.keys().getServerAliases(keyType, issuers);
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
