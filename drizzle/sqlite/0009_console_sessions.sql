CREATE TABLE `leaf_session` (
	`id` text(16) PRIMARY KEY NOT NULL,
	`token_tag` text(16) NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`address` text(64) NOT NULL,
	`user_agent` text(256) NOT NULL,
	`ended_at` integer
);
