package io.streamsmemory.operator.admission;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Presents whatever serving certificate was installed last: a rotated certificate is used by the next
 * TLS handshake, without restarting the server.
 */
final class RotatingKeyManager extends X509ExtendedKeyManager {
    /** A handshake picks an alias, then asks for its key and chain: the alias names one installed pair. */
    private record Material(String alias, PrivateKey key, X509Certificate[] chain) {}

    private final AtomicReference<Material> current = new AtomicReference<>();
    private volatile Material previous;
    private long installed;

    synchronized void install(PrivateKey key, X509Certificate cert) {
        previous = current.get();
        current.set(new Material("webhook-" + (++installed), key, new X509Certificate[] {cert}));
    }

    private Material byAlias(String alias) {
        Material material = current.get();
        if (material != null && material.alias().equals(alias)) {
            return material;
        }
        Material old = previous;
        return old != null && old.alias().equals(alias) ? old : null;
    }

    X509Certificate certificate() {
        Material material = current.get();
        return material == null ? null : material.chain()[0];
    }

    private String alias(String keyType) {
        Material material = current.get();
        return material != null && material.key().getAlgorithm().equals(keyType) ? material.alias() : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return alias(keyType);
    }

    /** TLS handshakes served (full ones: resumed sessions do not pick a key). */
    final LongAdder handshakes = new LongAdder();

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        String alias = alias(keyType);
        if (alias != null) {
            handshakes.increment();
        }
        return alias;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Material material = byAlias(alias);
        return material == null ? null : material.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Material material = byAlias(alias);
        return material == null ? null : material.key();
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        String alias = alias(keyType);
        return alias == null ? null : new String[] {alias};
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
