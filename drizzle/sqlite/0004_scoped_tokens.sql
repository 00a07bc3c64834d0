CREATE TABLE `leaf_token` (
	`id` text(16) PRIMARY KEY NOT NULL,
	`name` text(128) NOT NULL,
	`token_hash` text(64) NOT NULL,
	`tags` text NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` text(128) NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `leaf_token_token_hash_unique` ON `leaf_token` (`token_hash`);