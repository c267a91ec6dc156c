package io.sluice.server.controller;

/**
 * What the controller's handler classes share: the operations, the settings, the rights check and the token
 * issuer.
 *
 * @param core the operations
 * @param settings endpoints, page size, lease bounds
 * @param auth checks the caller's rights
 * @param tokens issues delegation tokens
 */
record ServiceContext(ControllerCore core, ControllerSettings settings, Authorizer auth, TokenIssuer tokens) {
}
