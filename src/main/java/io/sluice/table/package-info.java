/**
 * Key-value tables.
 */
package io.sluice.table;
