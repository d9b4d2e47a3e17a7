package io.streamsmemory.operator.admission;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A small CA: EC P-256 keys, a self-signed CA and server certificates it signs; PEM in and out. */
final class Certificates {
    /** Certificates start this long in the past, so a skewed clock elsewhere still accepts them. */
    static final Duration BACKDATE = Duration.ofHours(1);

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A certificate and its private key. */
    record Issued(X509Certificate cert, PrivateKey key) {
        String certPem() {
            return pem(cert);
        }

        String keyPem() {
            return pem(key);
        }

        Instant notAfter() {
            return cert.getNotAfter().toInstant();
        }
    }

    private Certificates() {}

    static Issued newCa(String commonName, Instant now, Duration validity) {
        try {
            KeyPair keys = newKeyPair();
            X500Name subject = new X500Name("CN=" + commonName);
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            subject,
                            serial(),
                            Date.from(now.minus(BACKDATE)),
                            Date.from(now.plus(validity)),
                            subject,
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()));
            return new Issued(sign(builder, keys.getPrivate()), keys.getPrivate());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not create the webhook CA", e);
        }
    }

    /** A server certificate for {@code subjectAltNames} ("DNS:name" or "IP:address"), signed by {@code ca}. */
    static Issued issueServer(
            Issued ca, String commonName, List<String> subjectAltNames, Instant now, Duration validity) {
        try {
            KeyPair keys = newKeyPair();
            Instant notAfter = now.plus(validity);
            if (notAfter.isAfter(ca.notAfter())) {
                notAfter = ca.notAfter();
            }
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            List<GeneralName> names = new ArrayList<>();
            for (String san : subjectAltNames) {
                names.add(
                        san.startsWith("IP:")
                                ? new GeneralName(GeneralName.iPAddress, san.substring(3))
                                : new GeneralName(
                                        GeneralName.dNSName, san.startsWith("DNS:") ? san.substring(4) : san));
            }
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            ca.cert(),
                            serial(),
                            Date.from(now.minus(BACKDATE)),
                            Date.from(notAfter),
                            new X500Name("CN=" + commonName),
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(
                            Extension.keyUsage,
                            true,
                            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(
                            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(
                            Extension.subjectAlternativeName,
                            false,
                            new GeneralNames(names.toArray(GeneralName[]::new)))
                    .addExtension(
                            Extension.authorityKeyIdentifier, false, utils.createAuthorityKeyIdentifier(ca.cert()))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()));
            return new Issued(sign(builder, ca.key()), keys.getPrivate());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not issue the webhook serving certificate", e);
        }
    }

    /** The certificate's subject alternative names in the "DNS:x" / "IP:y" form, sorted. */
    static Set<String> subjectAltNames(X509Certificate cert) {
        Set<String> names = new TreeSet<>();
        try {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    int type = (Integer) san.get(0);
                    if (type == GeneralName.dNSName) {
                        names.add("DNS:" + san.get(1));
                    } else if (type == GeneralName.iPAddress) {
                        names.add("IP:" + san.get(1));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            return names;
        }
        return names;
    }

    static boolean signedBy(X509Certificate cert, X509Certificate ca) {
        try {
            cert.verify(ca.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static String pem(Object object) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            if (object instanceof PrivateKey key) {
                // PKCS#8 ("PRIVATE KEY"), as cert-manager and most tools write it.
                writer.writeObject(new JcaPKCS8Generator(key, null));
            } else {
                writer.writeObject(object);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** Every certificate in a PEM text (a bundle may hold several). */
    static List<X509Certificate> parseCertificates(String pem) {
        List<X509Certificate> certs = new ArrayList<>();
        if (pem == null || pem.isBlank()) {
            return certs;
        }
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (object instanceof X509CertificateHolder holder) {
                    certs.add(converter.getCertificate(holder));
                }
            }
            return certs;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
        }
    }

    /** A PEM private key: PKCS#8 ("PRIVATE KEY"), or the traditional EC/RSA forms. */
    static PrivateKey parsePrivateKey(String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (object instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (object instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
            }
            throw new IllegalArgumentException("no private key in the PEM text");
        } catch (IOException e) {
            throw new IllegalArgumentException("not a PEM private key: " + e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }
}
