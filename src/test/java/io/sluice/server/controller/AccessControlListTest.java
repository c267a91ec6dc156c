package io.sluice.server.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.server.auth.AccessLevel;


/** Access control lists in both spellings, and the cluster-level rights Pravega names {@code prn::/}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AccessControlListTest {
    private static final AuthResource CLUSTER = AuthResource.cluster();
    private static final AuthResource SCOPE = AuthResource.scope("orders");
    private static final AuthResource STREAM = AuthResource.stream("orders", "eu");
    private static final AuthResource GROUP = AuthResource.readerGroup("orders", "billing");
    private static final AuthResource TABLE = AuthResource.keyValueTable("orders", "index");
    private static final AuthResource OTHER_SCOPE = AuthResource.scope("hr");
    private static final AuthResource OTHER_STREAM = AuthResource.stream("hr", "eu");
    private static final List<AuthResource> ALL = List.of(CLUSTER, SCOPE, STREAM, GROUP, TABLE, OTHER_SCOPE,
            OTHER_STREAM);

    private static List<AuthResource> granted(String acl, AccessLevel level) {
        AccessControlList parsed = AccessControlList.parse(acl);
        return ALL.stream().filter(r -> parsed.permits(r, level)).toList();
    }

    @Test
    void resourcesHavePravegasNames() {
        assertThat(CLUSTER.prn()).isEqualTo("prn::/");
        assertThat(SCOPE.prn()).isEqualTo("prn::/scope:orders");
        assertThat(STREAM.prn()).isEqualTo("prn::/scope:orders/stream:eu");
        assertThat(GROUP.prn()).isEqualTo("prn::/scope:orders/reader-group:billing");
        assertThat(TABLE.prn()).isEqualTo("prn::/scope:orders/key-value-table:index");
        // internal streams are authorised as what they belong to (Pravega's StreamAuthParams)
        assertThat(AuthResource.ofStream("orders", "_RGbilling")).isEqualTo(GROUP);
        assertThat(AuthResource.ofStream("orders", "_MARKeu")).isEqualTo(STREAM);
        assertThat(AuthResource.ofStream("orders", "eu")).isEqualTo(STREAM);
    }

    @Test
    void clusterLevelRightsInPravegasSpelling() {
        assertThat(granted("prn::/,READ_UPDATE", AccessLevel.READ_UPDATE)).containsExactly(CLUSTER);
        assertThat(granted("prn::/=READ", AccessLevel.READ)).containsExactly(CLUSTER);
        assertThat(granted("prn::/=READ", AccessLevel.READ_UPDATE)).isEmpty();
        assertThat(granted("prn::*,READ_UPDATE", AccessLevel.READ_UPDATE)).isEqualTo(ALL);
        // Pravega turns '*' into ".*", so prn::/* covers the cluster too
        assertThat(granted("prn::/*,READ", AccessLevel.READ)).isEqualTo(ALL);
    }

    @Test
    void clusterLevelRightsInTheShortSpelling() {
        assertThat(granted("/=READ_UPDATE", AccessLevel.READ_UPDATE)).containsExactly(CLUSTER);
        assertThat(granted("*=READ", AccessLevel.READ)).isEqualTo(ALL);
        // Pravega's pre-0.9 "/*": every scope, not the cluster nor what is in the scopes
        assertThat(granted("/*=READ", AccessLevel.READ)).containsExactly(SCOPE, OTHER_SCOPE);
        // the pre-0.9 entry separator is Pravega's ',' too
        assertThat(granted("/,READ_UPDATE;orders/*,READ", AccessLevel.READ))
                .containsExactly(CLUSTER, SCOPE, STREAM, GROUP, TABLE);
    }

    @Test
    void scopeAndObjectPatternsInPravegasSpelling() {
        // prn::/scope:S/* is what is in S, not S itself; prn::/scope:S is S alone
        assertThat(granted("prn::/scope:orders/*,READ", AccessLevel.READ)).containsExactly(STREAM, GROUP, TABLE);
        assertThat(granted("prn::/scope:orders,READ", AccessLevel.READ)).containsExactly(SCOPE);
        assertThat(granted("prn::/scope:orders/stream:eu,READ_UPDATE", AccessLevel.READ)).containsExactly(STREAM);
        assertThat(granted("prn::/scope:orders/reader-group:billing,READ", AccessLevel.READ)).containsExactly(GROUP);
        assertThat(granted("prn::/scope:orders/key-value-table:index,READ", AccessLevel.READ))
                .containsExactly(TABLE);
        assertThat(granted("prn::/scope:*/stream:eu,READ", AccessLevel.READ)).containsExactly(STREAM, OTHER_STREAM);
        // as in Pravega, a '*' matches '/' too: a trailing one covers what is in the scopes it matches
        assertThat(granted("prn::/scope:ord*,READ", AccessLevel.READ)).containsExactly(SCOPE, STREAM, GROUP, TABLE);
        assertThat(granted("prn::/scope:ord.*,READ", AccessLevel.READ)).containsExactly(SCOPE, STREAM, GROUP, TABLE);
        // a '.' in a name is a '.', not any character
        assertThat(granted("prn::/scope:o.ders,READ", AccessLevel.READ)).isEmpty();
    }

    @Test
    void theShortSpellingKeepsItsMeaning() {
        assertThat(granted("orders/*=READ_UPDATE", AccessLevel.READ_UPDATE))
                .containsExactly(SCOPE, STREAM, GROUP, TABLE);
        assertThat(granted("orders=READ", AccessLevel.READ)).containsExactly(SCOPE);
        assertThat(granted("orders/eu=READ", AccessLevel.READ)).containsExactly(STREAM);
        assertThat(granted("orders/billing=READ", AccessLevel.READ)).containsExactly(GROUP);
    }

    @Test
    void theHighestMatchingLevelWinsWhateverTheOrder() {
        AccessControlList acl = AccessControlList.parse("prn::/scope:orders/stream:eu,READ;prn::*,READ_UPDATE");
        assertThat(acl.levelFor(STREAM)).isEqualTo(AccessLevel.READ_UPDATE);
        assertThat(AccessControlList.parse("*=READ;orders/*=READ_UPDATE").levelFor(STREAM))
                .isEqualTo(AccessLevel.READ_UPDATE);
        assertThat(AccessControlList.parse("prn::/,READ_UPDATE").levelFor(SCOPE)).isEqualTo(AccessLevel.NONE);
    }

    @Test
    void malformedEntriesAreNamed() {
        assertThatThrownBy(() -> AccessControlList.parse("prn::/scope:orders/streams:eu,READ"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'prn::/scope:orders/streams:eu'");
        assertThatThrownBy(() -> AccessControlList.parse("prn::scope:orders,READ"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prn::/scope:S");
        assertThatThrownBy(() -> AccessControlList.parse("prn::/scope:,READ"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'prn::/scope:'");
        assertThatThrownBy(() -> AccessControlList.parse("orders:eu=READ"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prn::");
        assertThatThrownBy(() -> AccessControlList.parse("/orders=READ"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/orders'");
        assertThatThrownBy(() -> AccessControlList.parse("prn::/,WRITE"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NONE, READ or READ_UPDATE");
        assertThatThrownBy(() -> AccessControlList.parse("prn::/"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pattern=LEVEL");
    }

    @Test
    void passwordFileLinesCarryPravegaNames() {
        String line = PasswordFile.entry("ops", "pw".toCharArray(), "prn::/,READ_UPDATE;prn::/scope:orders/*,READ", 1);
        assertThat(line).startsWith("ops:pbkdf2-sha256$1$").endsWith(":prn::/,READ_UPDATE;prn::/scope:orders/*,READ");
        AccessControlList acl = PasswordFile.parse(List.of(line)).authenticate("ops", "pw".toCharArray()).orElseThrow();
        assertThat(acl.permits(CLUSTER, AccessLevel.READ_UPDATE)).isTrue();
        assertThat(acl.permits(STREAM, AccessLevel.READ)).isTrue();
        assertThat(acl.permits(STREAM, AccessLevel.READ_UPDATE)).isFalse();
        assertThat(acl.permits(OTHER_SCOPE, AccessLevel.READ)).isFalse();
    }
}
