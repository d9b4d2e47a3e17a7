package io.streamsmemory.controlplane;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A certificate signed by the local control plane's CA.
 *
 * @param certPem certificate, PEM
 * @param keyPem private key, PEM (PKCS#8, RSA 2048)
 * @param certFile the certificate as a file
 * @param keyFile the key as a file
 * @param pkcs12File cert + key as PKCS#12, password {@link #PKCS12_PASSWORD}, alias "tls"
 */
public record IssuedCertificate(String certPem, String keyPem, Path certFile, Path keyFile, Path pkcs12File) {

    public static final String PKCS12_PASSWORD = "changeit";

    /** A server-side SSLContext presenting this certificate (e.g. for a JDK HttpsServer webhook). */
    public SSLContext serverSslContext() {
        try (InputStream in = Files.newInputStream(pkcs12File)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PKCS12_PASSWORD.toCharArray());
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PKCS12_PASSWORD.toCharArray());
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
