package io.sluice.cli;

import io.sluice.controller.ControllerClient;

/**
 * A command that needs only the controller: opens a controller client with {@link Main}'s
 * {@link ControllerClientFactory}, runs {@link #execute}, and lets {@link #refine} explain a failure while the client
 * is still open.
 */
abstract class ControllerCommand extends ConnectedCommand {

    /**
     * Does the work. Blocks on the controller (and segment stores).
     *
     * @param controller the client; closed by the caller
     * @return what to print
     * @throws RuntimeException any failure; its message is shown to the user
     */
    abstract Result execute(ControllerClient controller);

    /**
     * Gives a failure a more useful message before it is reported (e.g. a missing stream whose scope is missing).
     * The default returns {@code failure}. Must not throw.
     *
     * @param failure what {@link #execute} threw
     * @param controller the client, still open
     * @return the failure to report
     */
    RuntimeException refine(RuntimeException failure, ControllerClient controller) {
        return failure;
    }

    @Override
    final Result connectAndExecute(Main main) {
        try (ControllerClient controller = main.controllers().open(config)) {
            try {
                return execute(controller);
            } catch (RuntimeException e) {
                throw refine(e, controller);
            }
        }
    }
}
