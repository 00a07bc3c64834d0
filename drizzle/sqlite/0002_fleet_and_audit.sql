CREATE TABLE `leaf_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`action` text(32) NOT NULL,
	`biz_tag` text(128),
	`actor` text(128) NOT NULL,
	`address` text(64) NOT NULL,
	`node_id` text(255) NOT NULL,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `leaf_audit_biz_tag` ON `leaf_audit` (`biz_tag`,`id`);--> statement-breakpoint
CREATE TABLE `leaf_node` (
	`node_id` text(255) PRIMARY KEY NOT NULL,
	`instance_id` text(64) NOT NULL,
	`address` text(255) NOT NULL,
	`version` text(64) NOT NULL,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`state` text(16) NOT NULL,
	`snapshot` text NOT NULL
);
