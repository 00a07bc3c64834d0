CREATE TABLE `leaf_claim` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`biz_tag` varchar(128) NOT NULL,
	`first_id` bigint NOT NULL,
	`last_id` bigint NOT NULL,
	`claimed_at` bigint NOT NULL,
	`kind` varchar(16) NOT NULL,
	`claimer` varchar(255) NOT NULL,
	`instance` varchar(64) NOT NULL,
	`serving_first` bigint,
	`leased_max` bigint,
	`tail_ms` bigint NOT NULL,
	`region` int NOT NULL,
	`regions` int NOT NULL,
	CONSTRAINT `leaf_claim_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `leaf_claim_tag_instance` ON `leaf_claim` (`biz_tag`,`instance`,`claimed_at`);