package io.sluice.cli;

import io.sluice.client.SluiceClient;

/**
 * A command that reads or writes events: connects a {@link SluiceClient} (controller and segment stores, TLS as the
 * controller URI says), runs {@link #execute}, and lets {@link #refine} explain a failure while the client is still
 * open. Closing the client at the end closes the command's readers and writers.
 */
abstract class ClientCommand extends ConnectedCommand {

    /**
     * Does the work. Blocks on the controller and the segment stores.
     *
     * @param client the client; closed by the caller
     * @return what to print
     * @throws RuntimeException any failure; its message is shown to the user
     */
    abstract Result execute(SluiceClient client);

    /**
     * Gives a failure a more useful message before it is reported. The default returns {@code failure}. Must not
     * throw.
     *
     * @param failure what {@link #execute} threw
     * @param client the client, still open
     * @return the failure to report
     */
    RuntimeException refine(RuntimeException failure, SluiceClient client) {
        return failure;
    }

    @Override
    final Result connectAndExecute(Main main) {
        try (SluiceClient client = SluiceClient.connect(ControllerOptions.clientConfig(config))) {
            try {
                return execute(client);
            } catch (RuntimeException e) {
                throw refine(e, client);
            }
        }
    }
}
