package io.streamsmemory.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ByteSizeTest {
    @ParameterizedTest
    @CsvSource({
        "512Mi,536870912",
        "2Gi,2147483648",
        "1G,1000000000",
        "1500000000,1500000000",
        "1.5Gi,1610612736",
        "64Ki,65536",
        "1e9,1000000000",
        "1k,1000",
        "1Ti,1099511627776"
    })
    void parsesKubernetesQuantities(String text, long bytes) {
        assertThat(ByteSize.parse(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "2GB", "-1Gi", "1.5.3Gi", "Gi", "100m", "abc", "99999999999Ei"})
    void rejectsWhatIsNotAMemoryQuantity(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(text.isEmpty() ? "is not a memory quantity" : text);
    }

    @ParameterizedTest
    @CsvSource({"1073741824,1 GiB", "1610612736,1.5 GiB", "16384,16 KiB", "12,12 B", "104857600,100 MiB"})
    void formatsForPeople(long bytes, String text) {
        assertThat(ByteSize.format(bytes)).isEqualTo(text);
    }
}
