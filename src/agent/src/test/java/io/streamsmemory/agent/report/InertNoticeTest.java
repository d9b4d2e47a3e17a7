package io.streamsmemory.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.log.CapturedAgentLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class InertNoticeTest {
    @RegisterExtension
    final CapturedAgentLog log = new CapturedAgentLog();

    @Test
    void aJvmThatBuiltNoKafkaStreamsIsToldOnceThatNothingWasApplied() {
        assertThat(InertNotice.check(30, false)).isTrue();
        assertThat(InertNotice.check(30, false)).isFalse();
        assertThat(log.lines())
                .singleElement()
                .asString()
                .startsWith(AgentLog.PREFIX + "INFO no KafkaStreams instance was built in this JVM within 30 s")
                .contains("the allocation is not applied");
    }

    @Test
    void aJvmThatBuiltKafkaStreamsHearsNothing() {
        assertThat(InertNotice.check(30, true)).isFalse();
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void aReportBeforeTheGracePeriodOrWithoutThePatchedConstructorSaysNothing() {
        InertNotice.configure(java.util.Map.of(InertNotice.SECONDS_ENV, "3600"));
        InertNotice.onReport();
        InertNotice.configure(java.util.Map.of(InertNotice.SECONDS_ENV, "1"));
        InertNotice.onReport(); // the agent did not patch KafkaStreams in this JVM: it cannot tell
        assertThat(log.lines()).isEmpty();
        InertNotice.configure(java.util.Map.of());
    }

    @Test
    void theGracePeriodComesFromTheEnvironmentAndABadValueIsReportedNotThrown() {
        assertThat(InertNotice.seconds(null)).isEqualTo(InertNotice.DEFAULT_SECONDS);
        assertThat(InertNotice.seconds(" 15 ")).isEqualTo(15);
        assertThat(InertNotice.seconds("0")).isZero();
        assertThat(InertNotice.seconds("soon")).isEqualTo(InertNotice.DEFAULT_SECONDS);
        assertThat(log.lines()).singleElement().asString().contains(InertNotice.SECONDS_ENV + "=soon");
    }
}
