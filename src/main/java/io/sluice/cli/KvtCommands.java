package io.sluice.cli;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.client.SluiceClient;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.stream.ScopedStream;
import io.sluice.table.Insert;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.Remove;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;
import io.sluice.table.Version;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice kvt create|put|get|remove|list|delete}: key-value tables from the command line. Keys and values are
 * UTF-8 text; a key shorter than the table's primary key length is padded with NUL bytes to it (and printed without
 * them), so a table made here with {@code --key-length 16} takes keys of up to 16 bytes. Has no behaviour of its
 * own: without a subcommand it is a usage error.
 */
@Command(name = "kvt", mixinStandardHelpOptions = true,
        description = {"Create key-value tables, put, get, remove and list their entries, delete them.",
            "Keys and values are UTF-8 text; a key shorter than the table's key length is padded with NUL bytes."},
        subcommands = {KvtCommands.Create.class, KvtCommands.PutEntry.class, KvtCommands.Get.class,
            KvtCommands.RemoveEntry.class, KvtCommands.ListEntries.class, KvtCommands.Delete.class})
final class KvtCommands {

    private KvtCommands() {
    }

    /** A command about one table. */
    abstract static class TableCommand extends ClientCommand {
        @Parameters(index = "0", paramLabel = "SCOPE/TABLE", converter = StreamCommands.StreamConverter.class,
                description = "the table, e.g. examples/balances")
        ScopedStream table;

        @Override
        RuntimeException refine(RuntimeException failure, SluiceClient client) {
            return StreamCommands.missingScope(failure, table, client.streamManager()::scopeExists);
        }

        Map<String, Object> json() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("table", table.scopedName());
            return json;
        }
    }

    /** A command about one key of a table. */
    abstract static class KeyCommand extends TableCommand {
        @Parameters(index = "1", paramLabel = "KEY", description = "the key (UTF-8 text)")
        String key;

        /** The key as the table takes it: its UTF-8 bytes, padded with NULs to the table's key length. */
        TableKey tableKey(KeyValueTable t) {
            int length = t.configuration().primaryKeyLength();
            byte[] text = key.getBytes(StandardCharsets.UTF_8);
            if (text.length > length) {
                throw new IllegalArgumentException("key '" + key + "' is " + text.length + " bytes in UTF-8; table "
                        + table + " takes keys of at most " + length);
            }
            if (t.configuration().secondaryKeyLength() > 0) {
                throw new IllegalArgumentException("table " + table + " has secondary keys, which 'kvt' does not "
                        + "handle");
            }
            byte[] padded = new byte[length];
            System.arraycopy(text, 0, padded, 0, text.length);
            return new TableKey(ByteBuffer.wrap(padded));
        }
    }

    /** Text of a key as {@link KeyCommand#tableKey} made it: the NUL padding dropped. */
    static String keyText(TableKey key) {
        ByteBuffer b = key.primaryKey().duplicate();
        int end = b.limit();
        while (end > b.position() && b.get(end - 1) == 0) {
            end--;
        }
        return text(b.limit(end));
    }

    /** UTF-8 text, or the bytes in hex (0x...) if they are not UTF-8. */
    static String text(ByteBuffer bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes.duplicate()).toString();
        } catch (CharacterCodingException e) {
            StringBuilder sb = new StringBuilder("0x");
            ByteBuffer b = bytes.duplicate();
            while (b.hasRemaining()) {
                sb.append(String.format("%02x", b.get() & 0xff));
            }
            return sb.toString();
        }
    }

    /** {@code sluice kvt create SCOPE/TABLE [--partitions N] [--key-length L]}. */
    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Creates a key-value table in an existing scope.",
                "Fails if it exists (already-exists)."},
            footer = Main.EXIT_STATUS)
    static final class Create extends TableCommand {
        @Option(names = "--partitions", paramLabel = "N", description = "partitions (table segments), default 4")
        int partitions = 4;

        @Option(names = "--key-length", paramLabel = "L",
                description = "the length of a key in bytes (the primary key), default 16")
        int keyLength = 16;

        @Override
        void validate() {
            if (partitions < 1) {
                throw new IllegalArgumentException("--partitions must be at least 1, got " + partitions);
            }
            if (keyLength < 1) {
                throw new IllegalArgumentException("--key-length must be at least 1, got " + keyLength);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            KeyValueTableConfiguration config = KeyValueTableConfiguration.builder().partitionCount(partitions)
                    .primaryKeyLength(keyLength).build();
            if (!client.keyValueTableManager().createKeyValueTable(table.scope(), table.name(), config)) {
                throw new AlreadyExistsException("key-value table " + table + " already exists");
            }
            Map<String, Object> json = json();
            json.put("created", true);
            json.put("partitions", partitions);
            json.put("keyLength", keyLength);
            return Result.of(json, "key-value table " + table + " created");
        }
    }

    /** {@code sluice kvt put SCOPE/TABLE KEY VALUE [--if-version V | --if-absent]}. */
    @Command(name = "put", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Sets a key's value and prints the entry's new version.",
                "With --if-version only if the key is at that version (as 'kvt get' printed it), with --if-absent "
                    + "only if the key is not in the table; otherwise it fails (precondition-failed) and changes "
                    + "nothing."},
            footer = Main.EXIT_STATUS)
    static final class PutEntry extends KeyCommand {
        @Parameters(index = "2", paramLabel = "VALUE", description = "the value (UTF-8 text)")
        String value;

        @Option(names = "--if-version", paramLabel = "V", description = "only if the key is at version V")
        String ifVersion;

        @Option(names = "--if-absent", description = "only if the key is not in the table")
        boolean ifAbsent;

        @Override
        void validate() {
            if (ifVersion != null && ifAbsent) {
                throw new IllegalArgumentException("--if-version and --if-absent exclude each other");
            }
            if (ifVersion != null) {
                Version.fromString(ifVersion);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            try (KeyValueTable t = client.keyValueTable(table.scope(), table.name())) {
                TableKey k = tableKey(t);
                ByteBuffer v = ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
                Version version = t.update(ifAbsent ? new Insert(k, v)
                        : ifVersion != null ? new Put(k, v, Version.fromString(ifVersion)) : new Put(k, v));
                Map<String, Object> json = json();
                json.put("key", key);
                json.put("version", version.toString());
                return Result.of(json, version.toString());
            }
        }
    }

    /** {@code sluice kvt get SCOPE/TABLE KEY}. */
    @Command(name = "get", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Prints a key's value and, on a second line, its version.",
                "Fails if the key is not in the table (not-found)."},
            footer = Main.EXIT_STATUS)
    static final class Get extends KeyCommand {
        @Override
        Result execute(SluiceClient client) {
            try (KeyValueTable t = client.keyValueTable(table.scope(), table.name())) {
                TableEntry e = t.get(tableKey(t));
                if (e == null) {
                    throw new NoSuchKeyException("key '" + key + "' is not in key-value table " + table);
                }
                Map<String, Object> json = json();
                json.put("key", key);
                json.put("value", text(e.value()));
                json.put("version", e.version().toString());
                return new Result(json, List.of(text(e.value()), e.version().toString()));
            }
        }
    }

    /** {@code sluice kvt remove SCOPE/TABLE KEY [--if-version V]}. */
    @Command(name = "remove", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Removes a key from a table.",
                "With --if-version only if the key is at that version; otherwise it fails (precondition-failed)."},
            footer = Main.EXIT_STATUS)
    static final class RemoveEntry extends KeyCommand {
        @Option(names = "--if-version", paramLabel = "V", description = "only if the key is at version V")
        String ifVersion;

        @Override
        void validate() {
            if (ifVersion != null) {
                Version.fromString(ifVersion);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            try (KeyValueTable t = client.keyValueTable(table.scope(), table.name())) {
                TableKey k = tableKey(t);
                t.update(ifVersion == null ? new Remove(k) : new Remove(k, Version.fromString(ifVersion)));
                Map<String, Object> json = json();
                json.put("key", key);
                json.put("removed", true);
                return Result.of(json, "key '" + key + "' removed from " + table);
            }
        }
    }

    /** {@code sluice kvt list SCOPE/TABLE [--max N]}. */
    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Lists a table's entries, one per line: key, a tab, the value.",
            footer = Main.EXIT_STATUS)
    static final class ListEntries extends TableCommand {
        @Option(names = "--max", paramLabel = "N", description = "stop after N entries")
        Long max;

        @Override
        void validate() {
            if (max != null && max < 1) {
                throw new IllegalArgumentException("--max must be at least 1, got " + max);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            List<String> lines = new ArrayList<>();
            List<Object> entries = new ArrayList<>();
            try (KeyValueTable t = client.keyValueTable(table.scope(), table.name())) {
                Iterator<TableEntry> it = t.iterator().forPrefix(ByteBuffer.allocate(0)).entries();
                while (it.hasNext() && (max == null || lines.size() < max)) {
                    TableEntry e = it.next();
                    lines.add(keyText(e.key()) + "\t" + text(e.value()));
                    Map<String, Object> one = new LinkedHashMap<>();
                    one.put("key", keyText(e.key()));
                    one.put("value", text(e.value()));
                    one.put("version", e.version().toString());
                    entries.add(one);
                }
            }
            Map<String, Object> json = json();
            json.put("entries", entries);
            return new Result(json, lines);
        }
    }

    /** {@code sluice kvt delete SCOPE/TABLE}. */
    @Command(name = "delete", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Deletes a key-value table and everything in it.",
                "Fails if it does not exist (not-found)."},
            footer = Main.EXIT_STATUS)
    static final class Delete extends TableCommand {
        @Override
        Result execute(SluiceClient client) {
            if (!client.keyValueTableManager().deleteKeyValueTable(table.scope(), table.name())) {
                throw new NoSuchStreamException("key-value table " + table + " does not exist");
            }
            Map<String, Object> json = json();
            json.put("deleted", true);
            return Result.of(json, "key-value table " + table + " deleted");
        }
    }
}
