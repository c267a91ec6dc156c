package io.sluice.examples;

import io.sluice.client.SluiceClient;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.table.Insert;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;
import io.sluice.table.Version;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A key-value table as a store of account balances: an insert, a read, a conditional update that wins and one that
 * loses (another writer changed the balance in between), and an iteration over the keys.
 *
 * <p>{@code examples/run.sh KeyValueTables [CONTROLLER_URI]} (it works in scope {@code examples}).
 */
public final class KeyValueTables {

    private KeyValueTables() {
    }

    /**
     * @param args the controller's URI (default {@code tcp://127.0.0.1:9090})
     */
    public static void main(String[] args) {
        try (SluiceClient client = SluiceClient.connect(args.length > 0 ? args[0] : "tcp://127.0.0.1:9090")) {
            run(client, "examples", "balances" + System.currentTimeMillis()).forEach(System.out::println);
        }
    }

    /** Account names as table keys: 8 bytes, padded with spaces. */
    static TableKey key(String account) {
        byte[] k = new byte[8];
        java.util.Arrays.fill(k, (byte) ' ');
        byte[] name = account.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(name, 0, k, 0, Math.min(8, name.length));
        return new TableKey(ByteBuffer.wrap(k));
    }

    static ByteBuffer amount(long cents) {
        return ByteBuffer.allocate(Long.BYTES).putLong(0, cents);
    }

    static long cents(TableEntry entry) {
        return entry.value().getLong(entry.value().position());
    }

    /**
     * Runs the example on a new table.
     *
     * @param client the client
     * @param scope a scope, created if missing
     * @param table a table name not in use
     * @return what happened, one line a step
     */
    public static List<String> run(SluiceClient client, String scope, String table) {
        List<String> log = new ArrayList<>();
        client.streamManager().createScope(scope);
        client.keyValueTableManager().createKeyValueTable(scope, table,
                KeyValueTableConfiguration.builder().partitionCount(2).primaryKeyLength(8).build());
        try (KeyValueTable balances = client.keyValueTable(scope, table)) {
            balances.update(new Insert(key("alice"), amount(100_00)));
            balances.update(new Insert(key("bob"), amount(20_00)));

            TableEntry alice = balances.get(key("alice"));
            log.add("alice has " + cents(alice) + " cents at version " + alice.version());

            // pay 30.00 out of alice's balance, on condition that nobody changed it since we read it
            Version paid = balances.update(new Put(key("alice"), amount(cents(alice) - 30_00), alice.version()));
            log.add("alice paid 3000, now at version " + paid);

            // a second writer still holding the old version loses, and must read again
            try {
                balances.update(new Put(key("alice"), amount(cents(alice) + 5_00), alice.version()));
                log.add("the stale update won (it must not)");
            } catch (BadKeyVersionException e) {
                log.add("the stale update was refused: " + e.getMessage());
            }

            Iterator<TableKey> keys = balances.iterator().forPrefix(ByteBuffer.allocate(0)).keys();
            List<String> names = new ArrayList<>();
            keys.forEachRemaining(k -> names.add(StandardCharsets.US_ASCII.decode(k.primaryKey()).toString().trim()));
            names.sort(null);
            log.add("accounts: " + names);
            log.add("alice has " + cents(balances.get(key("alice"))) + " cents");
        }
        return log;
    }
}
