CREATE TABLE `leaf_participant` (
	`instance_id` varchar(64) NOT NULL,
	`kind` varchar(16) NOT NULL,
	`label` varchar(255) NOT NULL,
	`host` varchar(255) NOT NULL,
	`proc_key` varchar(255) NOT NULL,
	`acked_version` bigint NOT NULL DEFAULT 0,
	`started_at` bigint NOT NULL,
	`seen_at` bigint NOT NULL,
	CONSTRAINT `leaf_participant_instance_id` PRIMARY KEY(`instance_id`)
);
--> statement-breakpoint
ALTER TABLE `leaf_order` ADD `ordering` varchar(8) DEFAULT 'strict' NOT NULL;--> statement-breakpoint
ALTER TABLE `leaf_order` ADD `version` bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `leaf_order` ADD `complete_at` bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `leaf_order` SET `complete_at` = `strict_since`;--> statement-breakpoint
INSERT INTO `leaf_order` (`biz_tag`, `ordering`, `strict_since`, `version`) VALUES ('*', 'none', 0, 0);