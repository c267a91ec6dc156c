package io.sluice.cli;

import io.sluice.client.SluiceClient;

/**
 * A command that reads or writes events: connects a {@link SluiceClient} (controller and segment stores, TLS as the
 * controller URI says). Closing the client at the end closes the command's readers and writers.
 */
abstract class ClientCommand extends ConnectedCommand<SluiceClient> {

    @Override
    final Result connectAndExecute(Main main) {
        try (SluiceClient client = SluiceClient.connect(ControllerOptions.clientConfig(config))) {
            return executeAndRefine(client);
        }
    }
}
