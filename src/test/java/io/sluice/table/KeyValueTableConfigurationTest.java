package io.sluice.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Key-value table configuration rules (Pravega's Java client's). */
@Timeout(30)
class KeyValueTableConfigurationTest {

    @Test
    void builderAndLimits() {
        KeyValueTableConfiguration config = KeyValueTableConfiguration.builder().partitionCount(2).primaryKeyLength(8)
                .secondaryKeyLength(4).build();
        assertThat(config.totalKeyLength()).isEqualTo(12);
        assertThat(config.rolloverSizeBytes()).isZero();
        assertThatThrownBy(() -> KeyValueTableConfiguration.builder().primaryKeyLength(1).build())
                .hasMessageContaining("partitionCount");
        assertThatThrownBy(() -> KeyValueTableConfiguration.builder().partitionCount(1).build())
                .hasMessageContaining("primaryKeyLength");
        assertThatThrownBy(() -> new KeyValueTableConfiguration(1, 1, -1, 0))
                .hasMessageContaining("secondaryKeyLength");
        assertThatThrownBy(() -> new KeyValueTableConfiguration(1, 1, 0, -1)).hasMessageContaining("rolloverSizeBytes");
    }
}
