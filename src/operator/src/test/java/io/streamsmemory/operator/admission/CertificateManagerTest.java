package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The certificate renewal rules, without an API server. */
class CertificateManagerTest {
    @Test
    void aNewCaGoesIntoTheBundleBeforeTheServingCertificateMovesToIt() {
        WebhookSettings settings = new WebhookSettings()
                .caValidity(Duration.ofDays(10), Duration.ofDays(3))
                .certificateValidity(Duration.ofDays(20), Duration.ofDays(1));
        CertificateManager manager = new CertificateManager(null, settings, Clock.systemUTC());
        Instant start = Instant.parse("2030-01-01T00:00:00Z");
        CertificateManager.State first = manager.renew(null, start, null);
        assertThat(manager.renew(first, start.plus(Duration.ofDays(1)), null)).isSameAs(first);

        // Eight days on, the CA is due: a new one, the old one kept in the bundle, the serving cert kept for now.
        Instant later = start.plus(Duration.ofDays(8));
        CertificateManager.State rotated = manager.renew(first, later, configurationTrusting(first));
        assertThat(rotated.ca().cert()).isNotEqualTo(first.ca().cert());
        assertThat(rotated.previousCas()).containsExactly(first.ca().cert());
        assertThat(rotated.serving()).isEqualTo(first.serving());
        // Once the API server's configuration holds the new CA, the serving certificate moves to it.
        CertificateManager.State moved = manager.renew(rotated, later, configurationTrusting(rotated));
        assertThat(Certificates.signedBy(moved.serving().cert(), rotated.ca().cert()))
                .isTrue();
        // The old CA leaves the bundle when it expires.
        assertThat(manager.renew(moved, start.plus(Duration.ofDays(11)), configurationTrusting(moved))
                        .previousCas())
                .isEmpty();
    }

    @Test
    void whatTheSecretHoldsReadsBackTheSame() {
        CertificateManager manager = new CertificateManager(null, new WebhookSettings(), Clock.systemUTC());
        CertificateManager.State state = manager.renew(null, Instant.now(), null);
        CertificateManager.State read = manager.parse(new SecretBuilder()
                .withData(CertificateManager.secretData(state))
                .build());
        assertThat(read).isNotNull();
        assertThat(read.ca().cert()).isEqualTo(state.ca().cert());
        assertThat(read.serving().cert()).isEqualTo(state.serving().cert());
        assertThat(manager.renew(read, Instant.now(), null)).isSameAs(read);
    }

    private static MutatingWebhookConfiguration configurationTrusting(CertificateManager.State state) {
        return new MutatingWebhookConfigurationBuilder()
                .addNewWebhook()
                .withName("w")
                .withNewClientConfig()
                .withCaBundle(
                        Base64.getEncoder().encodeToString(state.bundlePem().getBytes(StandardCharsets.UTF_8)))
                .endClientConfig()
                .endWebhook()
                .build();
    }
}
