package io.sluice.cli;

import io.sluice.controller.ControllerClient;

/** A command that needs only the controller: opens a controller client with {@link Main}'s factory. */
abstract class ControllerCommand extends ConnectedCommand<ControllerClient> {

    @Override
    final Result connectAndExecute(Main main) {
        try (ControllerClient controller = main.controllers().open(config)) {
            return executeAndRefine(controller);
        }
    }
}
