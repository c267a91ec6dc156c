package io.sluice.server.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReloadingPasswordFile}: the same users while the file is unchanged, the new ones once it is written again or
 * replaced, the last good ones (not none) while it is malformed or gone, and a malformed file refused at start.
 */
@Timeout(30)
class ReloadingPasswordFileTest {
    @TempDir
    Path dir;

    private static String user(String name) {
        return PasswordFile.entry(name, (name + "-pw").toCharArray(), "*=READ_UPDATE", 1);
    }

    private static boolean knows(ReloadingPasswordFile users, String name) {
        return users.get().authenticate(name, (name + "-pw").toCharArray()).isPresent();
    }

    /** Writes the file and gives it a modification time of its own, so the change shows whatever the clock's step. */
    private static void write(Path file, long second, String... lines) throws Exception {
        Files.writeString(file, String.join("\n", lines) + "\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.ofEpochSecond(1_800_000_000L + second)));
    }

    @Test
    void readsTheFileAgainWhenItChangesAndNotOtherwise() throws Exception {
        Path file = dir.resolve("users");
        write(file, 0, user("alice"), user("bob"));
        ReloadingPasswordFile users = new ReloadingPasswordFile(file);
        PasswordFile first = users.get();
        assertThat(users.get()).as("unchanged: the same instance, not read again").isSameAs(first);
        assertThat(knows(users, "alice")).isTrue();

        write(file, 1, user("bob"));
        assertThat(knows(users, "alice")).as("removed").isFalse();
        assertThat(knows(users, "bob")).isTrue();

        // replaced by rename, as a deployment script does
        Path tmp = dir.resolve("users.new");
        write(tmp, 1, user("carol"));
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertThat(knows(users, "bob")).isFalse();
        assertThat(knows(users, "carol")).isTrue();
    }

    @Test
    void keepsTheLastGoodUsersWhileTheFileIsMalformedOrMissing() throws Exception {
        Path file = dir.resolve("users");
        write(file, 0, user("alice"));
        ReloadingPasswordFile users = new ReloadingPasswordFile(file);

        write(file, 1, "alice:not-a-hash");
        assertThat(knows(users, "alice")).as("a half-written file changes nothing").isTrue();
        Files.delete(file);
        assertThat(knows(users, "alice")).as("a missing file changes nothing").isTrue();

        write(file, 2, "# nobody");
        assertThat(users.get().size()).as("a file without users is taken: nobody may call").isZero();
    }

    @Test
    void aMalformedFileIsRefusedAtStart() throws Exception {
        Path file = dir.resolve("users");
        write(file, 0, "alice:not-a-hash");
        assertThatThrownBy(() -> new ReloadingPasswordFile(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1");
    }
}
