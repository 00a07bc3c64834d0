CREATE TABLE `leaf_audit` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`at` bigint NOT NULL,
	`action` varchar(32) NOT NULL,
	`biz_tag` varchar(128),
	`actor` varchar(128) NOT NULL,
	`address` varchar(64) NOT NULL,
	`node_id` varchar(255) NOT NULL,
	`before` text,
	`after` text,
	CONSTRAINT `leaf_audit_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `leaf_node` (
	`node_id` varchar(255) NOT NULL,
	`instance_id` varchar(64) NOT NULL,
	`address` varchar(255) NOT NULL,
	`version` varchar(64) NOT NULL,
	`started_at` bigint NOT NULL,
	`heartbeat_at` bigint NOT NULL,
	`state` varchar(16) NOT NULL,
	`snapshot` mediumtext NOT NULL,
	CONSTRAINT `leaf_node_node_id` PRIMARY KEY(`node_id`)
);
--> statement-breakpoint
CREATE INDEX `leaf_audit_biz_tag` ON `leaf_audit` (`biz_tag`,`id`);