package io.sluice.client;

import java.util.List;
import java.util.Objects;

import io.sluice.admin.KeyValueTableManager;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.stream.Names;
import io.sluice.table.KeyValueTableConfiguration;

/** {@link KeyValueTableManager} on the controller's key-value table RPCs. */
final class KeyValueTableManagerImpl implements KeyValueTableManager {
    private final ControllerClient controller;

    KeyValueTableManagerImpl(ControllerClient controller) {
        this.controller = Objects.requireNonNull(controller, "controller");
    }

    @Override
    public boolean createKeyValueTable(String scope, String name, KeyValueTableConfiguration config) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(config, "config");
        if (controller.createKeyValueTable(scope, name, config)) {
            return true;
        }
        KeyValueTableConfiguration existing = controller.keyValueTableConfiguration(scope, name);
        boolean same = existing.partitionCount() == config.partitionCount()
                && existing.primaryKeyLength() == config.primaryKeyLength()
                && existing.secondaryKeyLength() == config.secondaryKeyLength()
                && (config.rolloverSizeBytes() == 0 || existing.rolloverSizeBytes() == 0
                        || existing.rolloverSizeBytes() == config.rolloverSizeBytes());
        if (!same) {
            throw new AlreadyExistsException("key-value table " + scope + "/" + name + " exists with another "
                    + "configuration: " + existing + ", not " + config);
        }
        return false;
    }

    @Override
    public boolean deleteKeyValueTable(String scope, String name) {
        Names.validateName("scope", scope);
        Names.validateKeyValueTable(name);
        return controller.deleteKeyValueTable(scope, name);
    }

    @Override
    public List<String> listKeyValueTables(String scope) {
        Objects.requireNonNull(scope, "scope");
        return controller.listKeyValueTables(scope);
    }

    @Override
    public KeyValueTableConfiguration getConfiguration(String scope, String name) {
        Names.validateName("scope", scope);
        Names.validateKeyValueTable(name);
        return controller.keyValueTableConfiguration(scope, name);
    }
}
