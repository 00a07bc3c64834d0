CREATE TABLE `leaf_semantics` (
	`biz_tag` varchar(128) NOT NULL,
	`semantics` varchar(8) NOT NULL,
	CONSTRAINT `leaf_semantics_biz_tag` PRIMARY KEY(`biz_tag`)
);
