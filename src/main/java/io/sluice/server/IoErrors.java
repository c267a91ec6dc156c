package io.sluice.server;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Words for I/O failures at start-up: the JDK's file exceptions often carry only the path ({@code /data/x}), which
 * says what but not why. Stateless.
 */
final class IoErrors {
    private IoErrors() {
    }

    /**
     * @param e a failure
     * @return what went wrong, naming the file when there is one, e.g. {@code /data/x: permission denied}
     */
    static String describe(IOException e) {
        String why = switch (e) {
            case NoSuchFileException n -> "no such file or directory";
            case AccessDeniedException a -> "permission denied";
            case FileAlreadyExistsException f -> "already exists";
            case NotDirectoryException n -> "not a directory";
            case CharacterCodingException c -> "not valid UTF-8 text";
            default -> null;
        };
        if (e instanceof FileSystemException f && f.getFile() != null) {
            String reason = why != null ? why : f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
            return f.getFile() + (f.getOtherFile() != null ? " -> " + f.getOtherFile() : "") + ": " + reason;
        }
        if (why != null) {
            return why;
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
