package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Retry;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.RetryPolicy;
import io.sluice.stream.WriterConfig;

/** The public {@link RetryPolicy} and the internal {@link Retry} it stands for. */
@Timeout(30)
class RetryPoliciesTest {

    @Test
    void pravegasPolicyIsTheDefaultAndConvertsFieldByField() {
        assertThat(WriterConfig.DEFAULT.retry()).isEqualTo(RetryPolicy.PRAVEGA);
        assertThat(ReaderConfig.DEFAULT.retry()).isEqualTo(RetryPolicy.PRAVEGA);
        Retry retry = RetryPolicies.toRetry(RetryPolicy.PRAVEGA.withMaxReconnectBackoff(Duration.ofSeconds(1)));
        assertThat(retry.initialBackoff()).isEqualTo(Duration.ofMillis(1));
        assertThat(retry.multiplier()).isEqualTo(10);
        assertThat(retry.maxAttempts()).isEqualTo(10);
        assertThat(retry.maxBackoff()).isEqualTo(Duration.ofSeconds(20));
        assertThat(retry.maxReconnectBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(retry.jitter()).isEqualTo(0.2);
        assertThat(retry.retriable().test(new ConnectionFailedException("gone"))).isTrue();
        assertThat(retry.retriable().test(new InvalidRequestException("bad"))).isFalse();
    }

    @Test
    void badValuesAreRefusedByName() {
        assertThatThrownBy(() -> RetryPolicy.exponential(Duration.ofMillis(1), 0.5, 3, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier");
        assertThatThrownBy(() -> RetryPolicy.exponential(Duration.ofMillis(1), 2, 0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> RetryPolicy.PRAVEGA.withMaxReconnectBackoff(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connection failure");
    }
}
