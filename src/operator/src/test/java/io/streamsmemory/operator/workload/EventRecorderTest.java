package io.streamsmemory.operator.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class EventRecorderTest {

    @Test
    void aSlowApiServerBoundsTheQueueAndADroppedEventIsOfferedAgain() throws Exception {
        CountDownLatch apiServerBack = new CountDownLatch(1);
        List<Event> posted = new CopyOnWriteArrayList<>();
        try (EventRecorder events = new EventRecorder(event -> {
            try {
                apiServerBack.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            posted.add(event);
        })) {
            int offered = EventRecorder.MAX_QUEUED + 50;
            for (int i = 0; i < offered; i++) {
                events.record(object("app-" + i), Type.Normal, "Allocated", "published " + i);
            }
            // One Event is being posted, MAX_QUEUED wait; the rest are dropped rather than held.
            assertThat(events.dropped()).isEqualTo(offered - 1 - EventRecorder.MAX_QUEUED);

            apiServerBack.countDown();
            await().until(() -> posted.size() == 1 + EventRecorder.MAX_QUEUED);
            // The last workload's Event was dropped, so its next reconcile posts it; a posted one is not repeated.
            events.record(object("app-" + (offered - 1)), Type.Normal, "Allocated", "published " + (offered - 1));
            events.record(object("app-0"), Type.Normal, "Allocated", "published 0");
            await().until(() -> posted.size() == 2 + EventRecorder.MAX_QUEUED);
            assertThat(posted.get(posted.size() - 1).getInvolvedObject().getName())
                    .isEqualTo("app-" + (offered - 1));
            assertThat(posted.get(0).getInvolvedObject().getName()).isEqualTo("app-0");
            assertThat(posted.get(0).getMessage()).isEqualTo("published 0");
        }
    }

    @Test
    void theSameGistOnTheSameObjectIsPostedOnceAndANewOneAgain() {
        List<Event> posted = new CopyOnWriteArrayList<>();
        try (EventRecorder events = new EventRecorder(posted::add)) {
            ConfigMap object = object("app");
            events.record(object, Type.Normal, "Resplit", "re-split to 2 threads (first time, with details)", "2");
            events.record(object, Type.Normal, "Resplit", "re-split to 2 threads", "2");
            events.record(object, Type.Normal, "Resplit", "re-split to 4 threads", "4");
            await().until(() -> posted.size() == 2);
            assertThat(posted)
                    .extracting(Event::getMessage)
                    .containsExactly("re-split to 2 threads (first time, with details)", "re-split to 4 threads");
        }
    }

    private static ConfigMap object(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .withUid("uid-" + name)
                .endMetadata()
                .build();
    }
}
